#include "channels/email/http_email_channel.hpp"

#include <algorithm>
#include <stdexcept>

namespace chopar::channels::email {

HttpEmailChannel::HttpEmailChannel(EmailSettings email, EmailApi api, net::HttpClient& http,
                                   const core::Clock& clock)
    : email_(std::move(email)),
      api_(std::move(api)),
      http_(http),
      clock_(clock),
      in_flight_(std::max<std::size_t>(1, email_.max_in_flight)) {
  const auto from = ParseMailbox(email_.from);
  if (!from) throw std::invalid_argument("from is not an email address: " + email_.from);
  from_ = *from;
}

std::vector<Outcome> HttpEmailChannel::Send(std::span<const Message> messages) {
  const auto prepare = [&](const Message& m) -> PreparedCall {
    const auto email = ComposeEmail(m, from_, email_, clock_.Now());
    if (!email) return Outcome::Permanent(api_.provider + ": no usable email address");
    return api_.request(m, *email);
  };
  return SendEachOverHttp(messages, {api_.provider, email_.timeout, &in_flight_}, prepare,
                          api_.outcome, http_);
}

}  // namespace chopar::channels::email
