#include "mcp/http_transport.h"

#include <utility>

namespace uiscope::mcp {

Result<std::unique_ptr<HttpTransport>> HttpTransport::Start(const Server& server,
                                                            HttpOptions options,
                                                            std::shared_ptr<HttpSite> site) {
  if (!server.options().tools_inline) {
    return MakeError(ErrorCode::kInternal,
                     "the HTTP transport needs a Server with tools_inline set");
  }
  if (options.host.empty() || options.host.find_first_of("/ ") != std::string::npos) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "invalid listen host \"" + options.host + "\" (e.g. 127.0.0.1)");
  }
  // Over a socket, /mcp always needs a token: without one, any page a
  // person's browser shows could reach a loopback server. One is made when
  // none is given (token() says which, for the server to print).
  if (options.token.empty()) options.token = NewHttpToken();
  std::string token = options.token;
  auto endpoint = std::make_unique<McpHttpEndpoint>(server, options, IsLoopbackHost(options.host),
                                                    std::move(site));
  auto http = HttpServer::Start(*endpoint, std::move(options));
  if (!http.ok()) return http.error();
  return std::unique_ptr<HttpTransport>(
      new HttpTransport(std::move(endpoint), std::move(*http), std::move(token)));
}

HttpTransport::HttpTransport(std::unique_ptr<McpHttpEndpoint> endpoint,
                             std::unique_ptr<HttpServer> http, std::string token)
    : endpoint_(std::move(endpoint)), http_(std::move(http)), token_(std::move(token)) {}
HttpTransport::~HttpTransport() { Stop(); }
int HttpTransport::port() const { return http_->port(); }
std::string HttpTransport::url() const { return http_->url(); }
int HttpTransport::max_connections() const { return http_->max_connections(); }
void HttpTransport::Stop() { http_->Stop(); }
void HttpTransport::Wait() { http_->Wait(); }

}  // namespace uiscope::mcp
