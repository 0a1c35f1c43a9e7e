#include "server/shared_body.h"

#include "common/gzip.h"
#include "server/accept.h"

namespace dagadvisor::server {

const std::string& SharedBody::gzip() const {
  std::call_once(gzip_once_, [this] { gzip_ = gzipCompress(identity_); });
  return gzip_;
}

bool acceptsGzip(const HttpRequest& request) {
  return acceptQuality(request.header("accept-encoding"), "gzip") > 0;
}

HttpResponse sharedResponse(const HttpRequest& request, std::shared_ptr<const SharedBody> body,
                            std::string content_type) {
  HttpResponse response{200, std::move(content_type), {}, {{"Vary", "Accept-Encoding"}}};
  const bool gzip =
      body->identity().size() >= kMinGzipBytes && acceptsGzip(request) && !body->gzip().empty();
  const std::string& bytes = gzip ? body->gzip() : body->identity();
  if (gzip) {
    response.headers.emplace_back("Content-Encoding", "gzip");
  }
  // Aliasing: points at the chosen string, keeps the whole SharedBody alive while writing.
  response.shared_body = std::shared_ptr<const std::string>(std::move(body), &bytes);
  return response;
}

}  // namespace dagadvisor::server
