#include "sources/kubernetes/kubernetes_source.h"

#include <simdjson.h>

#include <utility>

#include "common/secrets.h"

namespace dagadvisor::sources {
namespace {

struct PageFacts {
  std::string next;  // metadata.continue, "" on the last page
  std::size_t items = 0;
};

Result<PageFacts> readPage(std::string_view body) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto err = parser.parse(body.data(), body.size()).get(root)) {
    return makeError(std::string("malformed JSON: ") + simdjson::error_message(err));
  }
  simdjson::dom::array items;
  if (root["items"].get(items) != simdjson::SUCCESS) {
    return makeError("not a list: no \"items\" array");
  }
  PageFacts facts;
  facts.items = items.size();
  std::string_view next;
  if (root["metadata"]["continue"].get(next) == simdjson::SUCCESS) {
    facts.next = next;
  }
  return facts;
}

}  // namespace

KubernetesSource::KubernetesSource(KubeAccess access, std::size_t page_size, std::size_t max_pages)
    : access_(std::move(access)),
      page_size_(page_size),
      max_pages_(max_pages),
      client_(access_.http) {}

Result<KubeList> KubernetesSource::list(const std::string& path,
                                        const std::string& label_selector) {
  KubeList out;
  std::string next;
  const std::string where = describe() + ": LIST " + path;
  for (std::size_t page = 0; page < max_pages_; ++page) {
    HttpParams params;
    if (page_size_ > 0) {
      params.emplace_back("limit", std::to_string(page_size_));
    }
    if (!label_selector.empty()) {
      params.emplace_back("labelSelector", label_selector);
    }
    if (!next.empty()) {
      params.emplace_back("continue", next);
    }
    auto response = client_.get(access_.server + path, params);
    if (!response) {
      return makeError(response.error().message);
    }
    // Not served (the engine is not installed) or forbidden (RBAC): nothing to read, which the
    // caller reports as a gap. Mid-list, either would mean the list changed under us.
    if (page == 0 && (response->status == 404 || response->status == 403)) {
      out.status = response->status;
      return out;
    }
    if (response->status != 200) {
      // 410 Gone: the continue token expired mid-list; the next cycle starts over.
      return makeError(where + ": HTTP " + std::to_string(response->status));
    }
    auto facts = readPage(response->body);
    if (!facts) {
      return makeError(where + ": " + facts.error().message);
    }
    out.items += facts->items;
    out.pages.push_back(redactRegisteredSecrets(response->body));
    if (facts->next.empty()) {
      return out;
    }
    next = std::move(facts->next);
  }
  return makeError(where + ": more than " + std::to_string(max_pages_) + " pages");
}

}  // namespace dagadvisor::sources
