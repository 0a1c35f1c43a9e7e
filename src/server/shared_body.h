#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "server/http_server.h"

namespace dagadvisor::server {

/// A response body built once and served to many requests without copies; its gzip is made on
/// the first request that accepts gzip, once.
class SharedBody {
 public:
  explicit SharedBody(std::string identity) : identity_(std::move(identity)) {}

  const std::string& identity() const { return identity_; }
  const std::string& gzip() const;

 private:
  std::string identity_;
  mutable std::once_flag gzip_once_;
  mutable std::string gzip_;
};

/// Bodies smaller than this are always sent as they are: gzip would not pay for itself.
inline constexpr std::size_t kMinGzipBytes = 1024;

/// True when the request's Accept-Encoding allows gzip.
bool acceptsGzip(const HttpRequest& request);

/// `body` as a 200 response for `request`: gzip (with Content-Encoding) when the client accepts
/// it and the body is large, the identity otherwise; `Vary: Accept-Encoding` either way.
HttpResponse sharedResponse(const HttpRequest& request, std::shared_ptr<const SharedBody> body,
                            std::string content_type);

}  // namespace dagadvisor::server
