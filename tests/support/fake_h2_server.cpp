#include "testing/fake_h2_server.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <nghttp2/nghttp2.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>

#include "core/c_handle.hpp"
#include "core/openssl_handles.hpp"

namespace chopar::testing {
namespace {

using SslCtx = core::CHandle<SSL_CTX, SSL_CTX_free>;
using Ssl = core::CHandle<SSL, SSL_free>;
using X509Cert = core::CHandle<X509, X509_free>;
using X509Ext = core::CHandle<X509_EXTENSION, X509_EXTENSION_free>;
using Bio = core::CHandle<BIO, BIO_free>;
using H2Session = core::CHandle<nghttp2_session, nghttp2_session_del>;
using H2Callbacks = core::CHandle<nghttp2_session_callbacks, nghttp2_session_callbacks_del>;

[[noreturn]] void Fail(const std::string& what) {
  ERR_clear_error();
  throw std::runtime_error("fake h2 server: " + what);
}

// Owns a file descriptor. Move-only.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      Reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { Reset(); }
  [[nodiscard]] int get() const { return fd_; }
  void Reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

void AddExtension(X509* cert, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  const X509Ext ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value));
  if (!ext || X509_add_ext(cert, ext.get(), -1) != 1) Fail("X509 extension");
}

// A self-signed certificate that is its own CA, valid for a day, for
// 127.0.0.1 and localhost (curl checks the IP against subjectAltName).
X509Cert SelfSigned(EVP_PKEY* key) {
  X509Cert cert(X509_new());
  if (!cert) Fail("X509_new");
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), static_cast<long>(::getpid()));
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -60);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 24 * 3600);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  const auto* cn = reinterpret_cast<const unsigned char*>("127.0.0.1");
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, cn, -1, -1, 0);
  X509_set_issuer_name(cert.get(), name);
  AddExtension(cert.get(), NID_basic_constraints, "critical,CA:TRUE");
  AddExtension(cert.get(), NID_subject_key_identifier, "hash");
  AddExtension(cert.get(), NID_subject_alt_name, "IP:127.0.0.1,DNS:localhost");
  if (X509_sign(cert.get(), key, EVP_sha256()) <= 0) Fail("X509_sign");
  return cert;
}

std::string Pem(X509* cert) {
  const Bio bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509(bio.get(), cert) != 1) Fail("PEM_write_bio_X509");
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(size));
}

// ALPN: "h2" or nothing. Refusing here makes OpenSSL end the handshake with
// a no_application_protocol alert, as APNs does to an HTTP/1.1 client.
int SelectH2(SSL* /*ssl*/, const unsigned char** out, unsigned char* out_size,
             const unsigned char* offered, unsigned int offered_size, void* /*user*/) {
  static const unsigned char kH2[] = {2, 'h', '2'};
  unsigned char* selected = nullptr;
  if (SSL_select_next_proto(&selected, out_size, kH2, sizeof kH2, offered, offered_size) !=
      OPENSSL_NPN_NEGOTIATED) {
    return SSL_TLSEXT_ERR_ALERT_FATAL;
  }
  *out = selected;
  return SSL_TLSEXT_ERR_OK;
}

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return text;
}

}  // namespace

struct FakeH2Server::Impl {
  Handler handler;
  SslCtx ssl_ctx;
  Fd listener;
  Fd wake_read;  // readable once Stop() wrote to wake_write: ends every poll
  Fd wake_write;
  int port = 0;
  std::string ca_file;
  std::thread accept_thread;
  mutable std::mutex mutex;
  std::vector<Request> requests;
  std::vector<std::thread> connections;
  std::size_t accepted = 0;
  std::atomic<std::size_t> refused{0};
  std::atomic<bool> stopped{false};

  // Waits until `fd` is ready for `events`; false once the server stops.
  bool Wait(int fd, short events) const {
    for (;;) {
      pollfd fds[2] = {{fd, events, 0}, {wake_read.get(), POLLIN, 0}};
      const int rc = ::poll(fds, 2, -1);
      if (rc < 0 && errno == EINTR) continue;
      return rc > 0 && fds[1].revents == 0;
    }
  }

  void AcceptLoop() {
    while (Wait(listener.get(), POLLIN)) {
      const int fd = ::accept4(listener.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) continue;
      std::lock_guard lock(mutex);
      ++accepted;
      connections.emplace_back([this, fd] { Serve(Fd(fd)); });
    }
  }

  void Serve(Fd fd);
  struct Connection;
};

// One TLS connection's HTTP/2 session: its streams until each is answered.
struct FakeH2Server::Impl::Connection {
  struct Stream {
    FakeH2Server::Request request;
    std::string response_body;
    std::size_t sent = 0;
  };

  FakeH2Server::Impl& server;
  SSL* ssl;
  int fd;
  std::map<std::int32_t, Stream> streams;

  // SSL_write without partial writes: retried with the same bytes until done.
  bool WriteAll(const std::uint8_t* data, std::size_t size) {
    while (size > 0) {
      const int n = SSL_write(ssl, data, static_cast<int>(std::min<std::size_t>(size, 1 << 20)));
      if (n > 0) {
        data += n;
        size -= static_cast<std::size_t>(n);
        continue;
      }
      const int error = SSL_get_error(ssl, n);
      if (error == SSL_ERROR_WANT_WRITE && server.Wait(fd, POLLOUT)) continue;
      if (error == SSL_ERROR_WANT_READ && server.Wait(fd, POLLIN)) continue;
      return false;
    }
    return true;
  }

  FakeH2Server::Response Answer(const FakeH2Server::Request& request) {
    FakeH2Server::Handler handler;
    {
      std::lock_guard lock(server.mutex);
      server.requests.push_back(request);
      handler = server.handler;
    }
    try {
      return handler(request);
    } catch (const std::exception& e) {
      return {500, {}, std::string("handler threw: ") + e.what()};
    }
  }

  void Respond(nghttp2_session* session, std::int32_t stream_id) {
    const auto found = streams.find(stream_id);
    if (found == streams.end()) return;
    Stream& stream = found->second;
    FakeH2Server::Response response = Answer(stream.request);
    stream.response_body = std::move(response.body);
    std::vector<std::pair<std::string, std::string>> fields{
        {":status", std::to_string(response.status)}};
    for (auto& [name, value] : response.headers) fields.emplace_back(Lower(name), value);
    std::vector<nghttp2_nv> nva;
    for (auto& [name, value] : fields) {
      nva.push_back({reinterpret_cast<std::uint8_t*>(name.data()),
                     reinterpret_cast<std::uint8_t*>(value.data()), name.size(), value.size(),
                     NGHTTP2_NV_FLAG_NONE});
    }
    nghttp2_data_provider provider{};
    provider.source.ptr = &stream;  // a map node: stays put until the stream closes
    provider.read_callback = ReadBody;
    nghttp2_submit_response(session, stream_id, nva.data(), nva.size(),
                            stream.response_body.empty() ? nullptr : &provider);
  }

  static Connection& Of(void* user) { return *static_cast<Connection*>(user); }

  static ssize_t ReadBody(nghttp2_session* /*session*/, std::int32_t /*stream_id*/,
                          std::uint8_t* buffer, std::size_t length, std::uint32_t* flags,
                          nghttp2_data_source* source, void* /*user*/) {
    auto& stream = *static_cast<Stream*>(source->ptr);
    const std::size_t n = std::min(length, stream.response_body.size() - stream.sent);
    std::memcpy(buffer, stream.response_body.data() + stream.sent, n);
    stream.sent += n;
    if (stream.sent == stream.response_body.size()) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return static_cast<ssize_t>(n);
  }

  static int OnBeginHeaders(nghttp2_session* /*session*/, const nghttp2_frame* frame, void* user) {
    if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_REQUEST) {
      Of(user).streams[frame->hd.stream_id] = {};
    }
    return 0;
  }

  static int OnHeader(nghttp2_session* /*session*/, const nghttp2_frame* frame,
                      const std::uint8_t* name, std::size_t name_size, const std::uint8_t* value,
                      std::size_t value_size, std::uint8_t /*flags*/, void* user) {
    const auto found = Of(user).streams.find(frame->hd.stream_id);
    if (found == Of(user).streams.end()) return 0;
    FakeH2Server::Request& request = found->second.request;
    const std::string key(reinterpret_cast<const char*>(name), name_size);
    const std::string text(reinterpret_cast<const char*>(value), value_size);
    if (key == ":method") {
      request.method = text;
    } else if (key == ":path") {
      request.path = text;
    } else if (!key.starts_with(":")) {
      std::string& joined = request.headers[key];
      joined = joined.empty() ? text : joined + ", " + text;
    }
    return 0;
  }

  static int OnData(nghttp2_session* /*session*/, std::uint8_t /*flags*/, std::int32_t stream_id,
                    const std::uint8_t* data, std::size_t size, void* user) {
    const auto found = Of(user).streams.find(stream_id);
    if (found != Of(user).streams.end())
      found->second.request.body.append(reinterpret_cast<const char*>(data), size);
    return 0;
  }

  static int OnFrame(nghttp2_session* session, const nghttp2_frame* frame, void* user) {
    const bool ends_request =
        (frame->hd.type == NGHTTP2_DATA || frame->hd.type == NGHTTP2_HEADERS) &&
        (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0;
    if (ends_request) Of(user).Respond(session, frame->hd.stream_id);
    return 0;
  }

  static int OnStreamClose(nghttp2_session* /*session*/, std::int32_t stream_id,
                           std::uint32_t /*error_code*/, void* user) {
    Of(user).streams.erase(stream_id);
    return 0;
  }

  // Until the client goes away or the server stops.
  void Run() {
    nghttp2_session_callbacks* raw_callbacks = nullptr;
    if (nghttp2_session_callbacks_new(&raw_callbacks) != 0) return;
    const H2Callbacks callbacks(raw_callbacks);
    nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks.get(), OnBeginHeaders);
    nghttp2_session_callbacks_set_on_header_callback(callbacks.get(), OnHeader);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks.get(), OnData);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks.get(), OnFrame);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks.get(), OnStreamClose);
    nghttp2_session* raw_session = nullptr;
    if (nghttp2_session_server_new(&raw_session, callbacks.get(), this) != 0) return;
    const H2Session session(raw_session);
    const nghttp2_settings_entry settings[] = {{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 100}};
    if (nghttp2_submit_settings(session.get(), NGHTTP2_FLAG_NONE, settings, 1) != 0) return;

    std::uint8_t buffer[16384];
    for (;;) {
      for (;;) {
        const std::uint8_t* data = nullptr;
        const ssize_t n = nghttp2_session_mem_send(session.get(), &data);
        if (n < 0) return;
        if (n == 0) break;
        if (!WriteAll(data, static_cast<std::size_t>(n))) return;
      }
      if (nghttp2_session_want_read(session.get()) == 0 &&
          nghttp2_session_want_write(session.get()) == 0)
        return;
      const int n = SSL_read(ssl, buffer, sizeof buffer);
      if (n > 0) {
        if (nghttp2_session_mem_recv(session.get(), buffer, static_cast<std::size_t>(n)) < 0)
          return;
        continue;
      }
      const int error = SSL_get_error(ssl, n);
      if (error == SSL_ERROR_WANT_READ && server.Wait(fd, POLLIN)) continue;
      if (error == SSL_ERROR_WANT_WRITE && server.Wait(fd, POLLOUT)) continue;
      return;  // closed by the client, a TLS error, or the server stops
    }
  }
};

void FakeH2Server::Impl::Serve(Fd fd) {
  // A client that has gone makes a write raise SIGPIPE, which would end the
  // test program; blocked on this thread, the write fails with EPIPE instead.
  sigset_t pipe_signal;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, nullptr);

  const Ssl ssl(SSL_new(ssl_ctx.get()));
  if (!ssl || SSL_set_fd(ssl.get(), fd.get()) != 1) return;
  for (;;) {
    const int rc = SSL_accept(ssl.get());
    if (rc == 1) break;
    const int error = SSL_get_error(ssl.get(), rc);
    ERR_clear_error();
    if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE) {
      if (Wait(fd.get(), error == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT)) continue;
      return;  // the server stops: not a refusal
    }
    ++refused;  // the ALPN refusal included
    return;
  }
  const unsigned char* protocol = nullptr;
  unsigned int protocol_size = 0;
  SSL_get0_alpn_selected(ssl.get(), &protocol, &protocol_size);
  if (protocol_size != 2 || std::memcmp(protocol, "h2", 2) != 0) {
    ++refused;  // no ALPN at all: the handshake went through, the connection does not
    return;
  }
  Connection connection{*this, ssl.get(), fd.get(), {}};
  connection.Run();
  ERR_clear_error();
}

FakeH2Server::FakeH2Server(Handler handler) : impl_(std::make_unique<Impl>()) {
  impl_->handler = std::move(handler);
  const core::EvpPkey key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  if (!key) Fail("EVP_PKEY_Q_keygen");
  const X509Cert cert = SelfSigned(key.get());
  impl_->ssl_ctx.reset(SSL_CTX_new(TLS_server_method()));
  SSL_CTX* ctx = impl_->ssl_ctx.get();
  if (ctx == nullptr) Fail("SSL_CTX_new");
  // HTTP/2 requires TLS 1.2 or later (RFC 9113 §9.2).
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  if (SSL_CTX_use_certificate(ctx, cert.get()) != 1 ||
      SSL_CTX_use_PrivateKey(ctx, key.get()) != 1) {
    Fail("certificate or key refused");
  }
  SSL_CTX_set_alpn_select_cb(ctx, SelectH2, nullptr);

  impl_->listener = Fd(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (impl_->listener.get() < 0) Fail("socket");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t size = sizeof address;
  if (::bind(impl_->listener.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(impl_->listener.get(), SOMAXCONN) != 0 ||
      ::getsockname(impl_->listener.get(), reinterpret_cast<sockaddr*>(&address), &size) != 0) {
    Fail("bind/listen on 127.0.0.1");
  }
  impl_->port = ntohs(address.sin_port);
  int wake[2];
  if (::pipe2(wake, O_CLOEXEC) != 0) Fail("pipe2");
  impl_->wake_read = Fd(wake[0]);
  impl_->wake_write = Fd(wake[1]);

  impl_->ca_file =
      (std::filesystem::temp_directory_path() / ("chopar-fake-h2-" + std::to_string(::getpid()) +
                                                 "-" + std::to_string(impl_->port) + ".pem"))
          .string();
  std::ofstream(impl_->ca_file) << Pem(cert.get());
  if (!std::filesystem::exists(impl_->ca_file)) Fail("cannot write " + impl_->ca_file);

  impl_->accept_thread = std::thread([impl = impl_.get()] { impl->AcceptLoop(); });
}

FakeH2Server::~FakeH2Server() { Stop(); }

void FakeH2Server::Stop() {
  if (impl_->stopped.exchange(true)) return;
  const char byte = 0;
  (void)!::write(impl_->wake_write.get(), &byte, 1);
  impl_->accept_thread.join();
  std::vector<std::thread> connections;
  {
    std::lock_guard lock(impl_->mutex);
    connections.swap(impl_->connections);
  }
  for (auto& thread : connections) thread.join();
  std::error_code ignored;
  std::filesystem::remove(impl_->ca_file, ignored);
}

int FakeH2Server::port() const { return impl_->port; }
std::string FakeH2Server::url() const { return "https://127.0.0.1:" + std::to_string(impl_->port); }
const std::string& FakeH2Server::ca_file() const { return impl_->ca_file; }

std::vector<FakeH2Server::Request> FakeH2Server::requests() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->requests;
}

std::size_t FakeH2Server::request_count() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->requests.size();
}

std::size_t FakeH2Server::connection_count() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->accepted;
}

std::size_t FakeH2Server::refused_count() const { return impl_->refused.load(); }

}  // namespace chopar::testing
