// test_inspect.cpp — chapter "Looking inside": recorded attention maps, their JSON, SVG, HTML and terminal forms,
// and the run report. (The pages in a real browser: tests/inspect_browser_test.sh.)
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "data/tokenizers/tokenizer.h"
#include "inspect/maps/attention_maps.h"
#include "inspect/maps/cloze_maps.h"
#include "inspect/pages/attention_page.h"
#include "inspect/pages/explorer_page.h"
#include "inspect/pages/report.h"
#include "inspect/pages/svg.h"
#include "test_support.h"
#include "util/error.h"

using namespace attnlab;

namespace {

// Every attention kind, as (self-attention kind, cross-attention kind): external attention cannot be
// cross-attention (its keys are memories, not the encoder's output), so its cross-attention is scaled_dot; sagan
// has one head whatever `heads` says.
const std::vector<std::pair<AttentionKind, AttentionKind>> all_kinds = {
    {AttentionKind::scaled_dot, AttentionKind::scaled_dot}, {AttentionKind::additive, AttentionKind::additive},
    {AttentionKind::simplified, AttentionKind::simplified}, {AttentionKind::sagan, AttentionKind::sagan},
    {AttentionKind::linear, AttentionKind::linear},         {AttentionKind::external, AttentionKind::scaled_dot}};

// A small XML well-formedness check: every tag closes in order, attributes are quoted, '&' starts an entity and
// no '<' stands alone in text. Returns "" when well formed, else what is wrong and where.
std::string xml_problem(const std::string& text) {
  std::vector<std::string> open;
  size_t at = 0;
  if (text.rfind("<?xml", 0) == 0) at = text.find("?>") + 2;
  while (at < text.size()) {
    const char c = text[at];
    if (c == '&') {
      const size_t end = text.find(';', at);
      if (end == std::string::npos || end - at > 8) return "bare '&' at byte " + std::to_string(at);
      at = end + 1;
      continue;
    }
    if (c != '<') {
      ++at;
      continue;
    }
    const size_t end = text.find('>', at);
    if (end == std::string::npos) return "unclosed tag at byte " + std::to_string(at);
    std::string tag = text.substr(at + 1, end - at - 1);
    size_t quotes = 0;
    for (char q : tag) quotes += q == '"';
    if (quotes % 2 != 0) return "unbalanced quotes in <" + tag + ">";
    if (tag.empty() || tag[0] == ' ') return "a '<' that starts no tag at byte " + std::to_string(at);
    if (tag[0] == '/') {
      const std::string name = tag.substr(1);
      if (open.empty() || open.back() != name)
        return "</" + name + "> closes " + (open.empty() ? "nothing" : "<" + open.back() + ">");
      open.pop_back();
    } else if (tag.back() != '/') {
      open.push_back(tag.substr(0, tag.find_first_of(" \n")));
    }
    at = end + 1;
  }
  if (!open.empty()) return "<" + open.back() + "> never closes";
  return "";
}

size_t count(const std::string& text, const std::string& piece) {
  size_t n = 0;
  for (size_t at = text.find(piece); at != std::string::npos; at = text.find(piece, at + 1)) ++n;
  return n;
}

// A run held in memory: word tokenizer over a few sentences, an untrained small model of the given kinds.
// `window`: the encoder's self-attention sees only keys i − 1 … i + 1.
LoadedRun tiny_run(AttentionKind self_kind, AttentionKind cross_kind,
                   TokenizerKind tokenizer_kind = TokenizerKind::word, bool window = false) {
  LoadedRun run;
  run.config.tokenizer.kind = tokenizer_kind;
  std::vector<std::string> text = {"a happy girl does not go .", "une fille heureuse ne va pas .",
                                   "the old offices & <tags>", "les vieux bureaux très"};
  std::shared_ptr<Tokenizer> tokenizer = train_tokenizer(run.config.tokenizer, text, "");
  run.tokenizers = {tokenizer, tokenizer};
  ModelConfig& m = run.config.model;
  m.d_model = 16, m.heads = 2, m.d_ff = 32, m.encoder_layers = 2, m.decoder_layers = 2, m.dropout = 0.1;
  m.encoder_attention.kind = self_kind;
  m.decoder_attention.kind = self_kind;
  m.cross_attention.kind = cross_kind;
  m.encoder_attention.memory_slots = m.decoder_attention.memory_slots = 5;
  m.encoder_attention.has_window = window, m.encoder_attention.window_left = m.encoder_attention.window_right = 1;
  Generator init(7);
  run.model = std::make_unique<Seq2Seq>(model_config_for(run.config, run.tokenizers), init);
  run.checkpoint_path = "in memory";
  return run;
}

}  // namespace

TEST_CASE("xml_escape makes any token safe in SVG text and attributes, and leaves UTF-8 alone") {
  CHECK(xml_escape("<s> & \"x\" 'y'") == "&lt;s&gt; &amp; &quot;x&quot; &#39;y&#39;");
  CHECK(xml_escape("très déçu") == "très déçu");
}

TEST_CASE("the heat colour runs from white at 0 to dark blue at 1, darker with every step") {
  CHECK(heat_colour(0) == "#f7fbff");
  CHECK(heat_colour(1) == "#08306b");
  CHECK(heat_colour(-3) == heat_colour(0));
  CHECK(heat_colour(7) == heat_colour(1));
  auto brightness = [](const std::string& hex) {
    return std::stoi(hex.substr(1, 2), nullptr, 16) + std::stoi(hex.substr(3, 2), nullptr, 16) +
           std::stoi(hex.substr(5, 2), nullptr, 16);
  };
  for (int step = 1; step <= 20; ++step)
    CHECK(brightness(heat_colour(step / 20.0)) < brightness(heat_colour((step - 1) / 20.0)));
}

TEST_CASE("a heatmap SVG is well-formed XML with one cell per weight, escaped labels and a legend") {
  Heatmap map{
      "cross · layer 0 · head 1", {"<s>", "très"}, {"a", "&", "b"}, "queries", "keys", {0.1, 0.2, 0.7, 1, 0, 0}, {}};
  const std::string svg = heatmap_svg(map, HeatmapStyle{});
  CHECK(xml_problem(svg) == "");
  CHECK(svg.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>", 0) == 0);
  CHECK(svg.find("xmlns=\"http://www.w3.org/2000/svg\"") != std::string::npos);
  CHECK(count(svg, "<title>") == 6);  // a hover title per cell
  CHECK(svg.find("&lt;s&gt;") != std::string::npos);
  CHECK(svg.find("très") != std::string::npos);
  CHECK(svg.find(">&amp;</text>") != std::string::npos);
  CHECK(count(svg, "fill=\"" + heat_colour(1) + "\"") >= 1);  // the weight-1 cell
  CHECK(svg.find(">0.5</text>") != std::string::npos);        // the legend's middle tick

  HeatmapStyle inline_style;
  inline_style.standalone = false, inline_style.cell_titles = false, inline_style.data_map = "3/1";
  const std::string fragment = heatmap_svg(map, inline_style);
  CHECK(xml_problem(fragment) == "");
  CHECK(fragment.find("<?xml") == std::string::npos);
  CHECK(fragment.find("data-map=\"3/1\"") != std::string::npos);
  CHECK(count(fragment, "data-i=") == 6);
  CHECK(count(fragment, "<title>") == 0);
}

TEST_CASE("line charts are well-formed, draw one line per series, and say so when there is nothing to draw") {
  LineChart chart{"loss",
                  "step",
                  "loss",
                  {{"train", "#1f77b4", {{50, 5.7}, {100, 4.8}, {150, 0.05}}}, {"valid", "#d62728", {{100, 3.0}}}},
                  true};
  const std::string svg = line_chart_svg(chart);
  CHECK(xml_problem(svg) == "");
  CHECK(count(svg, "<polyline") == 1);
  CHECK(count(svg, "<circle") == 1);  // a one-point series is a dot
  CHECK(svg.find("(log scale)") != std::string::npos);
  CHECK(svg.find(">0.1</text>") != std::string::npos);  // a decade tick between 0.05 and 5.7
  // A log axis over less than a factor of 2 still gets labelled ticks.
  const std::string narrow =
      line_chart_svg(LineChart{"loss", "step", "loss", {{"train", "#000", {{1, 5.8}, {2, 6.0}}}}, true});
  CHECK(narrow.find(">5.9</text>") != std::string::npos);
  CHECK(line_chart_svg(LineChart{"empty", "x", "y", {}}).find("no data") != std::string::npos);
  const std::vector<double> ticks = nice_ticks(0, 1, 5);
  REQUIRE(ticks.size() == 6);
  for (size_t k = 0; k < ticks.size(); ++k) CHECK(ticks[k] == doctest::Approx(0.2 * double(k)));
  CHECK(nice_ticks(0, 1750, 6) == std::vector<double>{0, 500, 1000, 1500});
}

TEST_CASE("every recorded map of every attention kind has one row per query that sums to 1") {
  for (const auto& [self_kind, cross_kind] : all_kinds) {
    const std::string self_name = name_of(self_kind);
    CAPTURE(self_name);
    LoadedRun run = tiny_run(self_kind, cross_kind);
    AttentionPicture picture = record_attention(run, "a happy girl does not go .", "une fille heureuse ne va pas .");
    CHECK(picture.source_tokens.size() == 7);
    CHECK(picture.target_input_tokens.front() == "<s>");
    CHECK(picture.target_output_tokens.back() == "</s>");
    REQUIRE(picture.maps.size() == 6);  // 2 encoder self, 2 decoder self, 2 cross, in that order
    const std::vector<std::string> types = {"encoder_self", "encoder_self", "decoder_self",
                                            "decoder_self", "cross",        "cross"};
    for (size_t m = 0; m < picture.maps.size(); ++m) {
      const AttentionMapRecord& map = picture.maps[m];
      CAPTURE(map.name);
      CHECK(map.type == types[m]);
      CHECK(map.layer == static_cast<int64_t>(m % 2));
      CHECK(map.heads == (map.kind == AttentionKind::sagan ? 1 : 2));
      CHECK(map.queries == static_cast<int64_t>(query_labels(picture, map).size()));
      CHECK(map.keys == (map.keys_are_slots() ? 5 : static_cast<int64_t>(key_labels(picture, map).size())));
      for (int64_t h = 0; h < map.heads; ++h) {
        for (int64_t i = 0; i < map.queries; ++i) {
          double sum = 0;
          for (int64_t j = 0; j < map.keys; ++j) {
            CHECK(map.at(h, i, j) >= 0);
            sum += map.at(h, i, j);
            // Decoder self-attention is causal: no weight on later positions (external: no positions at all).
            if (map.type == "decoder_self" && !map.keys_are_slots() && j > i) CHECK(map.at(h, i, j) == 0);
          }
          CHECK(sum == doctest::Approx(1).epsilon(1e-5));
        }
      }
    }
  }
}

TEST_CASE("attention.json holds the tokens and every head's weights, whose rows sum to 1, for every kind") {
  const std::map<std::string, std::string> normalisation = {
      // by the "kind" the JSON names
      {"scaled_dot", "softmax over keys"},
      {"additive", "softmax over keys"},
      {"simplified", "softmax over keys"},
      {"sagan", "softmax over keys"},
      {"linear", "phi(q).phi(k) divided by its sum over keys"},
      {"external", "L1 over memory slots, after a softmax over tokens"}};
  for (const auto& [self_kind, cross_kind] : all_kinds) {
    const std::string self_name = name_of(self_kind);
    CAPTURE(self_name);
    LoadedRun run = tiny_run(self_kind, cross_kind);
    AttentionPicture picture = record_attention(run, "the old offices & <tags>");  // greedy translation
    const nlohmann::json json = nlohmann::json::parse(attention_json(picture));
    CHECK(json["schema"] == "attnlab-attention/2");
    CHECK(json["target_forced"] == false);
    CHECK(json["tokens"]["source"] == nlohmann::json(picture.source_tokens));
    CHECK(json["tokens"]["target_input"].size() == json["tokens"]["target_output"].size());
    REQUIRE(json["maps"].size() == 6);
    for (const auto& map : json["maps"]) {
      CAPTURE(map["name"].get<std::string>());
      CHECK(map["row_normalisation"] == normalisation.at(map["kind"].get<std::string>()));
      const size_t queries = json["tokens"][map["queries"].get<std::string>()].size();
      const size_t keys = map["keys"] == "slots" ? 5 : json["tokens"][map["keys"].get<std::string>()].size();
      REQUIRE(map["weights"].size() == map["heads"].get<size_t>());
      for (const auto& head : map["weights"]) {
        REQUIRE(head.size() == queries);
        const auto& positions =
            map["type"] == "encoder_self" ? json["tokens"]["source"] : json["tokens"]["target_input"];
        for (size_t i = 0; i < queries; ++i) {
          const auto& row = head[i];
          REQUIRE(row.size() == keys);
          double sum = 0;
          for (const auto& w : row) sum += w.get<double>();
          // An untrained model's greedy translation can hold <pad>; the decoder then treats that position as
          // padding, and the kinds that blank padded queries (external) give it a row of zeros.
          if (positions[i] == "<pad>" && sum == 0) continue;
          CHECK(sum == doctest::Approx(1).epsilon(1e-5));  // 6 decimals each
        }
      }
    }
    CHECK(json["maps"][4]["queries"] == "target_output");  // cross-attention rows: the predicted tokens
    CHECK(json["maps"][4]["keys"] == "source");
  }
}

TEST_CASE("external attention's maps are over memory slots, labelled as such in the JSON") {
  LoadedRun run = tiny_run(AttentionKind::external, AttentionKind::scaled_dot);
  AttentionPicture picture = record_attention(run, "a happy girl", "une fille");
  const nlohmann::json json = nlohmann::json::parse(attention_json(picture));
  CHECK(json["maps"][0]["keys"] == "slots");
  CHECK(json["maps"][0]["row_normalisation"] == "L1 over memory slots, after a softmax over tokens");
  CHECK(json["maps"][0]["weights"][0][0].size() == 5);
  CHECK(key_labels(picture, picture.maps[0]).back() == "slot 4");
}

TEST_CASE("an unknown source word is read as <unk> but carried as typed, and labelled as typed with a \"?\"") {
  LoadedRun run = tiny_run(AttentionKind::scaled_dot, AttentionKind::scaled_dot);
  AttentionPicture picture = record_attention(run, "a zorblax girl", "une");
  CHECK(picture.source_tokens == std::vector<std::string>{"a", "<unk>", "girl"});
  CHECK(picture.source_typed == std::vector<std::string>{"a", "zorblax", "girl"});
  CHECK(picture.source_unknown == std::vector<bool>{false, true, false});
  CHECK(source_labels(picture) == std::vector<std::string>{"a", "zorblax?", "girl"});
  CHECK(key_labels(picture, picture.maps.back())[1] == "zorblax?");  // cross-attention's keys
  const nlohmann::json json = nlohmann::json::parse(attention_json(picture));
  CHECK(json["tokens"]["source"][1] == "<unk>");
  CHECK(json["tokens"]["source_typed"][1] == "zorblax");
  CHECK(json["tokens"]["source_unknown"] == nlohmann::json::array({false, true, false}));
}

TEST_CASE("cloze.json holds α, β, β̄ and s as computed, and the cloze folder's page is the explorer with it") {
  ClozePicture picture;
  picture.question = "mary sees bob . @query @placeholder sees bob";
  picture.reader = "aoa";
  picture.document = {"mary", "sees", "bob"}, picture.query = {"@placeholder", "sees"};
  picture.document_unknown = {false, false, true}, picture.query_unknown = {false, false};
  picture.has_aoa = true;
  picture.alpha = {0.5, 0.2, 0.3, 0.3, 0.2, 0.5};  // [3, 2]: each column sums to 1
  picture.beta = {0.9, 0.1, 0.4, 0.6, 0.123456789, 0.876543211};
  picture.beta_mean = {0.474485596, 0.525514404};
  picture.s = {0.342, 0.300, 0.358};
  picture.top_answers = {{"bob", 0.358}, {"mary", 0.342}};
  const nlohmann::json json = nlohmann::json::parse(cloze_json(picture));
  CHECK(json["task"] == "cloze");
  CHECK(json["alpha"] == nlohmann::json::parse("[[0.5, 0.2], [0.3, 0.3], [0.2, 0.5]]"));
  CHECK(json["beta"][2][0].get<double>() == 0.123456789);  // not rounded
  CHECK(json["document_unknown"] == nlohmann::json::array({false, false, true}));
  CHECK(json["answers"][0]["word"] == "bob");
  const auto directory = testing::fresh_directory("inspect", "cloze");
  const std::vector<std::string> written = write_cloze_folder(picture, (directory / "out").string());
  CHECK(std::filesystem::path(written.back()).filename() == "index.html");
  const std::string page = testing::read_bytes(directory / "out" / "index.html");
  CHECK(page.find("\"schema\": \"attnlab-cloze/1\"") != std::string::npos);
  CHECK(page.find("X.views.cloze =") != std::string::npos);
  CHECK(nlohmann::json::parse(testing::read_bytes(directory / "out" / "cloze.json")) == json);
}

TEST_CASE("a character model's space tokens get a visible label") {
  LoadedRun run = tiny_run(AttentionKind::scaled_dot, AttentionKind::scaled_dot, TokenizerKind::character);
  AttentionPicture picture = record_attention(run, "a girl", "une");
  CHECK(picture.source_tokens == std::vector<std::string>{"a", "␣", "g", "i", "r", "l"});
}

TEST_CASE("the attention folder has the JSON, one well-formed SVG per map and head, and a page wired to all") {
  LoadedRun run = tiny_run(AttentionKind::scaled_dot, AttentionKind::scaled_dot);
  AttentionPicture picture = record_attention(run, "a happy girl does not go .", "une fille heureuse ne va pas .");
  const auto directory = testing::fresh_directory("inspect", "folder");
  const std::vector<std::string> written = write_attention_folder(picture, (directory / "out").string());
  REQUIRE(written.size() == 1 + 6 * 2 + 1);
  CHECK(std::filesystem::path(written.back()).filename() == "index.html");
  const std::string svg = testing::read_bytes(directory / "out" / "cross-layer1-head0.svg");
  CHECK(xml_problem(svg) == "");
  CHECK(svg.find("cross-attention · layer 1 · head 0 (scaled_dot)") != std::string::npos);
  CHECK(svg.find("heureuse") != std::string::npos);
  CHECK(svg.find("&lt;/s&gt;") != std::string::npos);
  for (const auto& path : written) {
    if (path.ends_with(".svg")) CHECK(xml_problem(testing::read_bytes(path)) == "");
  }
  // index.html is the explorer: its own script and styles inline, the data of attention.json inside it.
  const std::string page = testing::read_bytes(directory / "out" / "index.html");
  CHECK(page.find("<script type=\"application/json\" id=\"explorer-data\">{") != std::string::npos);
  CHECK(page.find("\"schema\": \"attnlab-attention/2\"") != std::string::npos);
  CHECK(page.find("function renderNeuron") != std::string::npos);
  CHECK(page.find("#tabs button") != std::string::npos);
  CHECK(count(page, "http://") ==  // nothing fetched: only namespaces (SVG's, and XHTML's for a saved picture)
        count(page, "http://www.w3.org/2000/svg") + count(page, "http://www.w3.org/1999/xhtml"));
  CHECK(page.find("https://") == std::string::npos);
  CHECK(page.find(" src=") == std::string::npos);
  // The embedded data cannot end its <script> early, whatever the tokens hold.
  CHECK(json_for_script("{\"a\":\"</script>\"}") == "{\"a\":\"\\u003c/script\\u003e\"}");
  // Nothing a sentence holds can end the element, open a comment or break a line of older JavaScript, and the
  // text is still the same JSON.
  const std::string hostile = nlohmann::json{{"text", "<!--<script> a & b </script> \u2028 \u2029 \u00e9"}}.dump();
  const std::string embedded = json_for_script(hostile);
  for (const char* banned : {"<", ">", "&", "\u2028", "\u2029"}) CHECK(embedded.find(banned) == std::string::npos);
  CHECK(nlohmann::json::parse(embedded) == nlohmann::json::parse(hostile));
  CHECK(embedded.find("\u00e9") != std::string::npos);  // other characters stay as they are
}

TEST_CASE("the terminal heatmap shades each weight band and labels rows and columns") {
  AttentionPicture picture;
  picture.source_tokens = {"a", "très", "b"};
  AttentionMapRecord map{"encoder.layers.0.self_attn",
                         "encoder_self",
                         0,
                         AttentionKind::scaled_dot,
                         1,
                         3,
                         3,
                         {1, 0, 0, 0.2, 0.4, 0.4, 0.05, 0.6, 0.35}};
  picture.maps = {map};
  const std::string text = terminal_heatmap(picture, map, 0);
  CHECK(text.find("encoder self-attention · layer 0 · head 0") != std::string::npos);
  CHECK(text.find("   a │██    │") != std::string::npos);
  CHECK(text.find("très │░░▒▒▒▒│") != std::string::npos);
  CHECK(text.find("   b │  ▓▓▒▒│") != std::string::npos);
  CHECK(text.find("      a t b") != std::string::npos);  // column labels written downwards: a, t(rès), b
}

TEST_CASE("metrics.jsonl is read back; BLEU is optional; a bad line is named by file and line") {
  const auto directory = testing::fresh_directory("inspect", "metrics");
  const auto path = (directory / "metrics.jsonl").string();
  std::ofstream(path)
      << R"({"type":"train","step":50,"loss":5.5,"lr":0.001,"tokens_per_s":900,"elapsed_s":3,"epoch":0})"
         "\n"
      << R"({"type":"valid","step":50,"loss":4.0,"perplexity":54.6,"token_accuracy":0.2,"exact_match":0})"
         "\n"
      << R"({"type":"note","text":"ignored"})"
         "\n\n"
      << R"({"type":"valid","step":100,"loss":3.0,"perplexity":20.1,"token_accuracy":0.4,"exact_match":0.1,"bleu":12.5})"
         "\n";
  TrainingHistory history = read_metrics(path);
  REQUIRE(history.train.size() == 1);
  REQUIRE(history.valid.size() == 2);
  CHECK(history.train[0].lr == 0.001);
  CHECK_FALSE(history.valid[0].bleu.has_value());
  CHECK(history.valid[1].bleu.value() == 12.5);

  ReportInputs inputs;
  inputs.run_dir = "runs/x";
  inputs.history = history;
  inputs.samples = {{"a <b>", "une <b>", "une <b>"}, {"c", "d", "e"}};
  const std::string page = report_html(inputs);
  CHECK(count(page, "class=\"chart\"") == 4);  // loss, learning rate, accuracy, BLEU
  CHECK(page.find("validation BLEU") != std::string::npos);
  CHECK(page.find("a &lt;b&gt;") != std::string::npos);
  CHECK(page.find("class=\"wrong\">e") != std::string::npos);

  inputs.history.valid[1].bleu.reset();
  CHECK(report_html(inputs).find("No BLEU in this run") != std::string::npos);

  std::ofstream(path, std::ios::app) << R"({"type":"train","step":150,"loss":"high"})"
                                        "\n";
  std::string message;
  try {
    read_metrics(path);
  } catch (const Error& e) {
    message = e.what();
  }
  CHECK(message.find("metrics.jsonl:6") != std::string::npos);
  CHECK(message.find("\"loss\"") != std::string::npos);
}

TEST_CASE(
    "a metrics.jsonl line with a \"type\" that is not a string, or a step that is no step, is named, not a "
    "JSON library exception") {
  const auto directory = testing::fresh_directory("inspect", "metrics-types");
  const auto path = (directory / "metrics.jsonl").string();
  std::ofstream(path) << R"({"type":7,"step":1})"
                         "\n";  // not a line read (no string "type")
  CHECK(read_metrics(path).train.empty());
  for (const std::string step : {"1e300", "-5", "2.5"}) {
    std::ofstream(path) << R"({"type":"train","step":)" << step << R"(,"loss":1,"lr":1,"tokens_per_s":1,"elapsed_s":1})"
                        << "\n";
    CAPTURE(step);
    CHECK_THROWS_WITH_AS(read_metrics(path), doctest::Contains("metrics.jsonl:1: \"step\" is"), Error);
  }
}

// ---- the explorer's data (attention_maps.h: stages, decoding steps, beam log) and page (explorer_page.h) ----

namespace {

// softmax of one row of scores, −∞ (a hidden key) giving 0.
std::vector<double> softmax_row(const std::vector<double>& scores) {
  double largest = -INFINITY, total = 0;
  for (double s : scores) largest = std::max(largest, s);
  std::vector<double> p;
  for (double s : scores) total += std::isfinite(s) ? std::exp(s - largest) : 0;
  for (double s : scores) p.push_back(std::isfinite(s) ? std::exp(s - largest) / total : 0);
  return p;
}

const NeuronStage& stage(const AttentionMapRecord& map, const std::string& name) {
  for (const NeuronStage& s : map.stages) {
    if (s.name == name) return s;
  }
  throw Error("map " + map.name + " has no stage " + name);
}

// The `d` numbers of stage `s` that start at flat index `at`.
std::vector<double> slice(const NeuronStage& s, size_t at, size_t d) {
  return {s.values.begin() + at, s.values.begin() + at + d};
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double total = 0;
  for (size_t f = 0; f < a.size(); ++f) total += a[f] * b[f];
  return total;
}

}  // namespace

TEST_CASE("every kind's recorded stages make its recorded weights again, by the kind's own equation") {
  for (const auto& [self_kind, cross_kind] : all_kinds) {
    const std::string self_name = name_of(self_kind);
    CAPTURE(self_name);
    const bool window = self_kind == AttentionKind::scaled_dot || self_kind == AttentionKind::additive;
    LoadedRun run = tiny_run(self_kind, cross_kind, TokenizerKind::word, window);
    AttentionPicture picture = record_attention(run, "a happy girl does not go .", "une fille heureuse ne va pas .");
    for (const AttentionMapRecord& map : picture.maps) {
      CAPTURE(map.name);
      const NeuronStage& q = stage(map, "q");  // [h, Tq, d]
      const size_t d = static_cast<size_t>(q.shape.back()), Tq = map.queries, Tk = map.keys;
      for (int64_t h = 0; h < map.heads; ++h) {
        for (size_t i = 0; i < Tq; ++i) {
          const std::vector<double> q_i = slice(q, (h * Tq + i) * d, d);
          std::vector<double> remade(Tk);
          if (map.kind == AttentionKind::external) {  // a = ã / Σ_s ã, z = q · M_k[s]
            const NeuronStage& tilde = stage(map, "token_softmax");
            double total = 0;
            for (size_t s = 0; s < Tk; ++s) total += tilde.values[(h * Tq + i) * Tk + s];
            for (size_t s = 0; s < Tk; ++s) {
              remade[s] = tilde.values[(h * Tq + i) * Tk + s] / (total + 1e-9);
              CHECK(dot(q_i, slice(stage(map, "memory_k"), s * d, d)) ==
                    doctest::Approx(stage(map, "scores").values[(h * Tq + i) * Tk + s]).epsilon(1e-4));
            }
          } else if (map.kind == AttentionKind::linear) {  // φ(q)·φ(k) / Σ over keys seen
            double total = 0;
            for (size_t j = 0; j < Tk; ++j) {
              const bool seen = !(map.type == "decoder_self" && j > i);
              remade[j] = seen ? dot(slice(stage(map, "phi_q"), (h * Tq + i) * d, d),
                                     slice(stage(map, "phi_k"), (h * Tk + j) * d, d))
                               : 0;
              total += remade[j];
            }
            for (double& w : remade) w /= total;
          } else {  // softmax of the score made here
            std::vector<double> scores(Tk);
            const NeuronStage& masked = stage(map, "scores");
            for (size_t j = 0; j < Tk; ++j) {
              const double made =
                  map.kind == AttentionKind::additive
                      ? dot(slice(stage(map, "w"), h * d, d), slice(stage(map, "tanh"), ((h * Tq + i) * Tk + j) * d, d))
                      : dot(q_i, slice(stage(map, "k"), (h * Tk + j) * d, d)) * map.score_scale;
              const double recorded = masked.values[(h * Tq + i) * Tk + j];
              if (std::isfinite(recorded)) CHECK(made == doctest::Approx(recorded).epsilon(1e-4));
              scores[j] = std::isfinite(recorded) ? made : -INFINITY;
            }
            remade = softmax_row(scores);
          }
          for (size_t j = 0; j < Tk; ++j) CHECK(remade[j] == doctest::Approx(map.at(h, i, j)).epsilon(1e-4));
        }
      }
    }
  }
}

namespace {

// Query i of head h of a hard-attention map, whose scores' softmax is `soft`: the map is that softmax itself (its
// argmax is only marked, as chosen_key, in the record and the JSON entry), not a one-hot row.
void check_hard_row(const AttentionMapRecord& map, const nlohmann::json& entry, const std::vector<double>& soft,
                    int64_t h, size_t i) {
  const size_t Tk = map.keys, row = h * map.queries + i;
  const NeuronStage& a = stage(map, "distribution");  // [h, Tq, Tk]
  const double chosen = stage(map, "chosen_key").values[row];
  size_t best = 0;
  double entropy = 0;  // of the recorded row
  for (size_t j = 0; j < Tk; ++j) {
    CHECK(a.values[row * Tk + j] == doctest::Approx(soft[j]).epsilon(1e-4));
    CHECK(map.at(h, i, j) == doctest::Approx(soft[j]).epsilon(1e-4));  // not a one-hot row
    if (a.values[row * Tk + j] > a.values[row * Tk + best]) best = j;
    if (map.at(h, i, j) > 0) entropy -= map.at(h, i, j) * std::log(map.at(h, i, j));
  }
  if (map.type != "decoder_self" || i > 0) CHECK(entropy > 0.01);  // untrained: far from one key
  REQUIRE(std::isfinite(chosen));
  CHECK(chosen == double(best));
  CHECK(entry["neuron"]["chosen_key"][h][i] == best);
  CHECK(entry["hard_eval"] == "argmax");
}

}  // namespace

TEST_CASE(
    "local_m, local_p and hard attention record their centre, window, Gaussian and chosen key, which make "
    "their weights again") {
  // Every use of each kind: (self-attention kind, cross-attention kind).
  for (const auto& [self_kind, cross_kind] :
       std::vector<std::pair<AttentionKind, AttentionKind>>{{AttentionKind::local_p, AttentionKind::hard},
                                                            {AttentionKind::hard, AttentionKind::local_m},
                                                            {AttentionKind::local_m, AttentionKind::local_p}}) {
    const std::string self_name = name_of(self_kind);
    CAPTURE(self_name);
    LoadedRun run = tiny_run(self_kind, cross_kind);
    AttentionPicture picture = record_attention(run, "a happy girl does not go .", "une fille heureuse ne va pas .");
    const nlohmann::json json = nlohmann::json::parse(attention_json(picture));
    for (size_t m = 0; m < picture.maps.size(); ++m) {
      const AttentionMapRecord& map = picture.maps[m];
      const nlohmann::json& entry = json["maps"][m];
      CAPTURE(map.name);
      const size_t Tq = map.queries, Tk = map.keys, d = static_cast<size_t>(stage(map, "q").shape.back());
      CHECK(map.score_scale == doctest::Approx(1 / std::sqrt(double(d))));
      const NeuronStage& scores = stage(map, "scores");  // [h, Tq, Tk], −∞ where hidden
      for (int64_t h = 0; h < map.heads; ++h) {
        for (size_t i = 0; i < Tq; ++i) {
          const size_t row = h * Tq + i;
          const std::vector<double> s(scores.values.begin() + row * Tk, scores.values.begin() + (row + 1) * Tk);
          for (size_t j = 0; j < Tk; ++j) {  // the score is q·k / √d_k where seen
            const double made = dot(slice(stage(map, "q"), row * d, d), slice(stage(map, "k"), (h * Tk + j) * d, d));
            if (std::isfinite(s[j])) CHECK(made * map.score_scale == doctest::Approx(s[j]).epsilon(1e-4));
          }
          const std::vector<double> soft = softmax_row(s);
          if (map.kind == AttentionKind::hard) {
            check_hard_row(map, entry, soft, h, i);
            continue;
          }
          // The local kinds: S_i, the last key the query may see; the centre p_i in [0, S_i] (local_m: min(i, S_i)).
          const double last = map.type == "decoder_self" ? double(i) : double(Tk - 1);
          const double p = stage(map, "centre").values[row], D = double(map.local_width);
          CHECK(D == 2);
          CHECK((p >= 0 && p <= last));
          if (map.kind == AttentionKind::local_m) CHECK(p == std::min(double(i), last));
          // A key is seen exactly when it lies in [p − D, p + D] and not after S_i; the window names the first
          // and last of them.
          double first = NAN, final = NAN;
          for (size_t j = 0; j < Tk; ++j) {
            const bool inside = std::abs(double(j) - p) <= D && double(j) <= last;
            CHECK(std::isfinite(s[j]) == inside);
            if (inside && std::isnan(first)) first = double(j);
            if (inside) final = double(j);
          }
          CHECK(stage(map, "window").values[2 * row] == first);
          CHECK(stage(map, "window").values[2 * row + 1] == final);
          CHECK(entry["neuron"]["window"][h][i] == nlohmann::json{first, final});
          for (size_t j = 0; j < Tk; ++j) {
            double weight = soft[j];
            if (map.kind == AttentionKind::local_p) {  // softmax × e^(−(j − p)² / 2σ²), σ = D/2
              const double gauss = std::exp(-(double(j) - p) * (double(j) - p) / (2 * (D / 2) * (D / 2)));
              CHECK(stage(map, "gaussian").values[row * Tk + j] == doctest::Approx(gauss).epsilon(1e-4));
              CHECK(stage(map, "softmax").values[row * Tk + j] == doctest::Approx(soft[j]).epsilon(1e-4));
              weight *= gauss;
            }
            CHECK(map.at(h, i, j) == doctest::Approx(weight).epsilon(1e-4));
          }
        }
      }
      if (map.kind != AttentionKind::hard) {
        CHECK(entry["local"]["width"] == 2);
        CHECK(entry["local"]["sigma"] ==
              (map.kind == AttentionKind::local_p ? nlohmann::json(1.0) : nlohmann::json(nullptr)));
        CHECK(entry["hard_eval"].is_null());
      } else {
        CHECK(entry["local"].is_null());
      }
    }
  }
}

TEST_CASE("hard attention evaluated by its expectation chose no single key: its chosen_key is null, its weights a") {
  LoadedRun run = tiny_run(AttentionKind::scaled_dot, AttentionKind::hard);
  run.config.model.cross_attention.hard_eval = HardEval::expectation;
  Generator init(7);
  run.model = std::make_unique<Seq2Seq>(model_config_for(run.config, run.tokenizers), init);
  AttentionPicture picture = record_attention(run, "a happy girl does not go .", "une fille heureuse ne va pas .");
  const nlohmann::json json = nlohmann::json::parse(attention_json(picture));
  for (size_t m = 0; m < picture.maps.size(); ++m) {
    const AttentionMapRecord& map = picture.maps[m];
    if (map.kind != AttentionKind::hard) continue;
    CAPTURE(map.name);
    CHECK(json["maps"][m]["hard_eval"] == "expectation");
    const NeuronStage& a = stage(map, "distribution");
    for (size_t n = 0; n < a.values.size(); ++n) CHECK(map.weights[n] == doctest::Approx(a.values[n]).epsilon(1e-6));
    for (const auto& head : json["maps"][m]["neuron"]["chosen_key"]) {
      for (const auto& key : head) CHECK(key.is_null());
    }
  }
}

TEST_CASE("the decoding steps hold the five likeliest next tokens, best first, and the chosen token's probability") {
  LoadedRun run = tiny_run(AttentionKind::scaled_dot, AttentionKind::scaled_dot);
  AttentionPicture picture = record_attention(run, "a happy girl does not go .");
  REQUIRE(picture.decoding.size() == picture.target_output_tokens.size());
  for (size_t t = 0; t < picture.decoding.size(); ++t) {
    const DecodingStep& step = picture.decoding[t];
    CHECK(step.chosen == picture.target_output_tokens[t]);
    REQUIRE(step.likeliest.size() == 5);
    double total = 0;
    for (size_t k = 0; k < 5; ++k) {
      total += step.likeliest[k].second;
      if (k) CHECK(step.likeliest[k - 1].second >= step.likeliest[k].second);
    }
    CHECK(total <= 1 + 1e-9);
    CHECK(step.chosen_probability <= step.likeliest[0].second);
  }
  const nlohmann::json json = nlohmann::json::parse(attention_json(picture));
  CHECK(json["decoding"]["steps"].size() == picture.decoding.size());
  CHECK(json["decoding"]["steps"][0]["reads"] == "<s>");
  CHECK(json["decoding"]["beam"] == 1);
  CHECK(json["decoding"]["beam_steps"].empty());
}

TEST_CASE("with beam search every step keeps at most k hypotheses and the translation is the best finished one") {
  LoadedRun run = tiny_run(AttentionKind::scaled_dot, AttentionKind::scaled_dot);
  AttentionPicture picture = record_attention(run, "a happy girl does not go .", "", 3);
  CHECK(picture.beam == 3);
  REQUIRE(!picture.beam_steps.empty());
  std::vector<std::string> output(picture.target_output_tokens.begin(), picture.target_output_tokens.end() - 1);
  double best = -INFINITY;
  bool found = false;
  for (const auto& step : picture.beam_steps) {
    CHECK(step.size() <= 6);  // the best 2k candidates
    int64_t kept = 0;
    for (const BeamCandidate& c : step) {
      kept += c.fate == "kept";
      CHECK((c.fate == "kept" || c.fate == "finished" || c.fate == "dropped"));
      if (c.fate != "finished") continue;
      best = std::max(best, c.score);
      std::vector<std::string> tokens = c.tokens;
      if (!tokens.empty() && tokens.back() == "</s>") tokens.pop_back();
      if (tokens == output) found = true;
    }
    CHECK(kept <= 3);
  }
  CHECK(found);
}

TEST_CASE("the explorer page holds its script, its styles and the data, and no sentence can break out of it") {
  const std::string data = "{\"source\": \"</script><script>alert(1)</script> /*{{script}}*/ {{data}}\"}";
  const std::string page = explorer_page_html("a <title> & more", data, {});
  CHECK(count(page, "</script>") == 5);  // config, data, compared data, film, script: nothing more closes
  CHECK(page.find("<title>a &lt;title&gt; &amp; more</title>") != std::string::npos);
  CHECK(page.find("\"mode\":\"file\"") != std::string::npos);
  for (const char* script :
       {"X.clear = function", "X.heatmapSvg = function", "X.views.head =", "X.views.neuron =", "X.views.decoding =",
        "X.views.flow =", "X.views.cloze =", "X.startServe = function", "X.savePicture = function"}) {
    CHECK_MESSAGE(page.find(script) != std::string::npos, script);  // every script, inline
  }
  CHECK(page.find("--accent") != std::string::npos);  // explorer.css, inline
  CHECK(page.find("{{") == page.find("{{script}}"));  // every marker filled; the one left is the data's
  const std::string served = explorer_page_html("t", "", {"runs/a", "runs/b"});
  CHECK(served.find("id=\"explorer-data\">null</script>") != std::string::npos);
  CHECK(served.find("\"runs\":[\"runs/a\",\"runs/b\"]") != std::string::npos);
  CHECK(page.find("id=\"explorer-compared\">null</script>") != std::string::npos);
  // attnlab attention --compare: the second run's data of the sentence, for the compare view, and the two names.
  const std::string both = explorer_page_html("t", "{\"n\": 1}", {}, "{\"n\": 2}", {"runs/a", "runs/b"});
  CHECK(both.find("id=\"explorer-compared\">{\"n\": 2}</script>") != std::string::npos);
  CHECK(both.find("\"compared_runs\":[\"runs/a\",\"runs/b\"]") != std::string::npos);
  CHECK_THROWS_AS(explorer_page_html("t", "{}", {}, "{}", {"runs/a"}), Error);
}

TEST_CASE("a hard map's heatmap draws the distribution a and outlines the chosen key on top, one per row") {
  LoadedRun run = tiny_run(AttentionKind::scaled_dot, AttentionKind::hard);
  AttentionPicture picture = record_attention(run, "a happy girl does not go .", "une fille heureuse ne va pas .");
  int hard_maps = 0;
  for (const AttentionMapRecord& map : picture.maps) {
    if (map.kind != AttentionKind::hard) continue;
    ++hard_maps;
    CAPTURE(map.name);
    const NeuronStage& chosen = stage(map, "chosen_key");
    for (int64_t head = 0; head < map.heads; ++head) {
      const Heatmap heatmap = heatmap_of(picture, map, head);
      REQUIRE(static_cast<int64_t>(heatmap.marked.size()) == map.queries);
      for (int64_t i = 0; i < map.queries; ++i) {
        CHECK(double(heatmap.marked[static_cast<size_t>(i)]) ==
              chosen.values[static_cast<size_t>(head * map.queries + i)]);
        CHECK(heatmap.weights[static_cast<size_t>(i * map.keys + heatmap.marked[static_cast<size_t>(i)])] <
              1);  // a, not a 1
      }
      const std::string svg = heatmap_svg(heatmap, HeatmapStyle{});
      size_t outlines = 0;
      for (size_t at = svg.find("class=\"marked\""); at != std::string::npos; at = svg.find("class=\"marked\"", at + 1))
        ++outlines;
      CHECK(static_cast<int64_t>(outlines) == map.queries);
    }
  }
  CHECK(hard_maps == 2);  // both decoder layers' cross-attention
}
