// contrast_api.h — serve's POST /api/contrast: "why this token and not that one?" at one decoder position of a
// sentence pair the page shows (src/inspect/maps/contrast.h computes it; the decoding view asks it, steps.js).
//
//   POST /api/contrast   {"run": 0, "text": "these men …", "target": "ces hommes …", "position": 2,
//                         "alternative": "fille", "ig_steps": 16}
//                        ("run" 0 by default; "ig_steps" 1 … --max-ig-steps, 16 by default or the most allowed)
//                        → one entry of attention.json's "contrasts": the gap log p(chosen) − log p(alternative)
//                          at the position, its integrated gradients and gradient × input over the source
//                          tokens, the completeness error, ALTI+'s source / target-prefix split
// The pair is the one the page shows: "text" translated as "target" (forced), so the chosen token is the page's.
// 400 names what is wrong (a field missing or out of range, a position past the translation, a token not in the
// target vocabulary or the chosen one itself, a cloze run); 405 for another method.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cli/serve/explorer_api.h"

namespace attnlab {

// The route: checks the request at once (400), then a job that computes the contrast on a leased model copy.
Routed contrast_route(const std::string& request_body, std::vector<std::unique_ptr<ServedRun>>& runs,
                      const ExplorerApiOptions& options);

}  // namespace attnlab
