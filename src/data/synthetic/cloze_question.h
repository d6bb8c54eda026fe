// cloze_question.h — reading a cloze question line (data/synthetic/cloze.h writes them): document, @query, query.
#pragma once

#include <string>
#include <vector>

#include "tensor/real.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

constexpr const char* cloze_placeholder = "@placeholder";   // the blank in the query
constexpr const char* cloze_query_marker = "@query";        // between document and query on a question line

// Every noun the generator uses (people, animals, things), for the frequency baseline.
const std::vector<std::string>& cloze_nouns();

// A question line cut at its @query marker into the document's words and the query's words. Throws
// attnlab::Error naming `where` when the line has no marker, more than one, an empty side, or a query without
// exactly one @placeholder.
struct ClozeQuestion {
  std::vector<std::string> document;
  std::vector<std::string> query;
};
ClozeQuestion split_cloze_question(const std::string& line, const std::string& where);

// The most-frequent-noun baseline: the noun (of cloze_nouns()) that occurs most often in the document, the first
// to occur among equals; "" when the document has no noun.
std::string cloze_frequency_baseline(const std::vector<std::string>& document);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
