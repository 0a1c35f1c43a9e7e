// Each kind's settings are documented once, in its detector's fields(); the example file's
// comments and the settings tables of docs/findings.md are checked against them.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "advice/kind_list.h"
#include "config/config_loader.h"
#include "support/test_support.h"

using namespace dagadvisor;

namespace {

std::string sourcePath(const std::string& relative) {
  return std::string(DAGADVISOR_SOURCE_DIR) + "/" + relative;
}

std::string sectionOf(std::string_view kind) {
  std::string section(kind);
  std::replace(section.begin(), section.end(), '-', '_');
  return section;
}

// One kind's rows, their paths relative to its section.
std::vector<config::Field> rowsOf(const advice::KindSpec& spec, config::DetectorSettings& into) {
  spec.add_settings(into);
  std::vector<config::Field> rows;
  const std::string prefix = "detectors." + sectionOf(spec.kind) + ".";
  for (config::Field& field : into.fields()) {
    if (field.path.starts_with(prefix)) {
      field.path = field.path.substr(prefix.size());
      rows.push_back(std::move(field));
    }
  }
  return rows;
}

std::string squeezed(const std::string& text) {
  std::istringstream words(text);
  std::string word, out;
  while (words >> word) {
    out += (out.empty() ? "" : " ") + word;
  }
  return out;
}

// The comment block right above `    key:` in the example's section `  section:`, words joined.
std::string exampleComment(const std::string& example, const std::string& section,
                           const std::string& key) {
  const std::size_t start = example.find("\n  " + section + ":\n");
  if (start == std::string::npos) {
    return "<no section>";
  }
  const std::size_t end = example.find("\n  # ", start + 1);  // the next section's comment
  const std::size_t at = example.find("\n    " + key + ":", start);
  if (at == std::string::npos || at > end) {
    return "<no key>";
  }
  std::string comment;
  std::size_t line_end = at;
  while (line_end > start) {
    const std::size_t line_start = example.rfind('\n', line_end - 1);
    const std::string line = example.substr(line_start + 1, line_end - line_start - 1);
    if (!line.starts_with("    # ")) {
      break;
    }
    comment = line.substr(6) + " " + comment;
    line_end = line_start;
  }
  return squeezed(comment);
}

const std::string kTableEnd = "<!-- /settings -->\n";

std::string tableStart(const std::string& section) {
  return "<!-- settings: detectors." + section +
         " (generated from the detector's fields(); DAGADVISOR_UPDATE_DOCS=1 rewrites it) -->\n";
}

std::string settingsTable(const std::string& section, std::vector<config::Field>& rows) {
  std::string table = tableStart(section) + "Settings (`detectors." + section +
                      "`):\n\n"
                      "| setting | default | what it does |\n| --- | --- | --- |\n";
  for (const config::Field& row : rows) {
    table += "| `" + row.path + "` | `" + config::renderFieldValue(row.ref) + "` | " +
             std::string(row.doc) + " |\n";
  }
  return table + kTableEnd;
}

// `docs` with the table of `section` replaced, or inserted at the end of the kind's section.
std::string withTable(std::string docs, std::string_view kind, const std::string& table) {
  const std::string start_marker = tableStart(sectionOf(kind));
  if (const std::size_t start = docs.find(start_marker); start != std::string::npos) {
    const std::size_t end = docs.find(kTableEnd, start) + kTableEnd.size();
    return docs.replace(start, end - start, table);
  }
  const std::size_t heading = docs.find("\n## " + std::string(kind) + "\n");
  std::size_t next = docs.find("\n## ", heading + 1);
  if (next == std::string::npos) {  // the last section: the table ends the page
    return docs + (docs.ends_with("\n\n") ? "" : "\n") + table;
  }
  return docs.insert(next + 1, table + "\n");
}

}  // namespace

TEST_CASE("every setting of every kind says what it does, and its default is valid",
          "[kinds][settings]") {
  const config::Config defaults = advice::defaultConfig();
  CHECK(config::validate(defaults).errors.empty());
  for (const advice::KindSpec& spec : advice::kindList()) {
    config::DetectorSettings settings;
    std::vector<config::Field> rows = rowsOf(spec, settings);
    INFO(spec.kind);
    REQUIRE_FALSE(rows.empty());
    CHECK(rows.front().path == "enabled");
    for (const config::Field& row : rows) {
      INFO(row.path);
      CHECK(row.doc.size() > 10);
      CHECK(row.path.find('.') == std::string::npos);
    }
  }
}

TEST_CASE("the example file's comment above each detector setting is its documentation",
          "[kinds][settings]") {
  const std::string example = testing::readFile(sourcePath("config/dagadvisor.example.yaml"));
  for (const advice::KindSpec& spec : advice::kindList()) {
    config::DetectorSettings settings;
    for (const config::Field& row : rowsOf(spec, settings)) {
      INFO("detectors." << sectionOf(spec.kind) << "." << row.path);
      CHECK(exampleComment(example, sectionOf(spec.kind), row.path) ==
            squeezed(std::string(row.doc)));
    }
  }
}

TEST_CASE("docs/findings.md has each kind's settings table, generated from its rows",
          "[kinds][settings]") {
  const std::string path = sourcePath("docs/findings.md");
  const std::string docs = testing::readFile(path);
  std::string expected = docs;
  for (const advice::KindSpec& spec : advice::kindList()) {
    config::DetectorSettings settings;
    std::vector<config::Field> rows = rowsOf(spec, settings);
    expected = withTable(expected, spec.kind, settingsTable(sectionOf(spec.kind), rows));
  }
  if (std::getenv("DAGADVISOR_UPDATE_DOCS") != nullptr && expected != docs) {
    std::ofstream(path, std::ios::binary) << expected;
    WARN("rewrote " << path);
    return;
  }
  CHECK(docs == expected);  // on a difference: DAGADVISOR_UPDATE_DOCS=1 ctest -R 'settings table'
}
