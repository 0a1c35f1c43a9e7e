#include "report/graph_svg.h"

#include <gvc.h>

#include <cstdlib>
#include <mutex>
#include <string>

namespace dagadvisor::report {
namespace {

std::mutex& graphvizMutex() {
  static std::mutex mutex;
  return mutex;
}

// One context per process: creating it loads the plugins (tens of ms), and it is never freed
// because the fontconfig state it pulls in is process-wide anyway.
GVC_t* context() {
  static GVC_t* const gvc = [] {
    agseterr(AGMAX);  // keep parse errors off stderr; aglasterr() puts them in our error
    return gvContext();
  }();
  return gvc;
}

std::string lastError() {
  char* text = aglasterr();  // malloc'd by Graphviz
  std::string message = text != nullptr ? text : "";
  std::free(text);
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) {
    message.pop_back();
  }
  return message;
}

}  // namespace

Result<std::string> renderGraphSvg(std::string_view dot) {
  const std::string text(dot);
  std::lock_guard lock(graphvizMutex());
  GVC_t* gvc = context();
  if (gvc == nullptr) {
    return makeError("graphviz: cannot create a context");
  }
  Agraph_t* graph = agmemread(text.c_str());
  if (graph == nullptr) {
    return makeError("graphviz: cannot parse the DOT graph: " + lastError());
  }
  if (gvLayout(gvc, graph, "dot") != 0) {
    agclose(graph);
    return makeError("graphviz: layout failed");
  }
  char* buffer = nullptr;
  unsigned int length = 0;
  const int rendered = gvRenderData(gvc, graph, "svg", &buffer, &length);
  std::string svg = rendered == 0 && buffer != nullptr ? std::string(buffer, length) : "";
  gvFreeRenderData(buffer);
  gvFreeLayout(gvc, graph);
  agclose(graph);
  if (svg.empty()) {
    return makeError("graphviz: rendering SVG failed");
  }
  return svg;
}

}  // namespace dagadvisor::report
