#include "app/config_providers.hpp"

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include "channels/provider_registry.hpp"
#include "channels/provider_secret.hpp"

namespace chopar::app {
namespace {

constexpr std::string_view kListKey = "providers";

const std::vector<std::string> kEmailKinds = {"smtp", "ses", "mailgun", "postmark", "sendgrid"};
const std::vector<std::string> kSmsKinds = {"eskiz", "twilio", "playmobile"};

// The keys every entry has besides its kind's.
const std::vector<std::string> kEntryKeys = {"kind", "name", "weight", "failure_threshold",
                                             "open_seconds"};

// Which kind a key of an entry belongs to: its prefix names it, or an
// SMTP-only key; nullopt for a key every kind of the channel reads.
std::optional<std::string> EmailKeyKind(const std::string& key) {
  for (const std::string_view kind : {"ses", "mailgun", "postmark", "sendgrid"}) {
    if (key.starts_with(std::string(kind) + "_")) return std::string(kind);
  }
  static const std::set<std::string> smtp = {"smtp_url",      "username", "password",
                                             "password_file", "starttls", "ca_file"};
  if (smtp.contains(key)) return "smtp";
  return std::nullopt;
}
std::optional<std::string> SmsKeyKind(const std::string& key) {
  for (const std::string_view kind : {"twilio", "playmobile"}) {
    if (key.starts_with(std::string(kind) + "_")) return std::string(kind);
  }
  // The section's keys from before Twilio and Playmobile are Eskiz's.
  static const std::set<std::string> eskiz = {"base_url", "email", "password", "from"};
  if (eskiz.contains(key)) return "eskiz";
  return std::nullopt;
}

// [channels.email] starttls: unset, the channel's default (required with a
// username).
ParsedText StartTlsSetting(channels::email::EmailSettings& email) {
  return {[&email](const std::string& text) -> std::optional<std::string> {
    if (text.empty()) {
      email.starttls.reset();
      return std::nullopt;
    }
    const auto mode = channels::email::ParseStartTls(text);
    if (!mode) return "must be required, opportunistic or off";
    email.starttls = mode;
    return std::nullopt;
  }};
}

// The secret keys an entry may also read from a file (<key>_file).
const std::vector<std::string> kEmailSecrets = {"password",
                                                "ses_secret_access_key",
                                                "ses_session_token",
                                                "mailgun_api_key",
                                                "mailgun_webhook_signing_key",
                                                "postmark_server_token",
                                                "postmark_webhook_password",
                                                "sendgrid_api_key"};
const std::vector<std::string> kSmsSecrets = {"password", "twilio_auth_token",
                                              "playmobile_password"};

// One channel's list: how its entries are bound and checked.
template <typename Settings>
struct ListSpec {
  std::string channel;  // "email"
  std::vector<ListedProvider<Settings>>* entries;
  Settings* section;
  std::vector<std::string> kinds;
  std::vector<std::string> secrets;
  std::function<std::vector<Binding>(const std::string&, Settings&, const std::string&)> bindings;
  std::function<std::optional<std::string>(const std::string&)> key_kind;

  [[nodiscard]] std::string Path() const {
    return "channels." + channel + "." + std::string(kListKey);
  }
};

template <typename Settings>
std::vector<Binding> EntryBindings(const ListSpec<Settings>& spec, ListedProvider<Settings>& entry,
                                   const std::string& section) {
  std::vector<Binding> b = spec.bindings(section, entry.settings, "kind");
  b.push_back({section, "name", &entry.name});
  b.push_back({section, "weight", &entry.weight, NotNegative()});
  b.push_back({section, "failure_threshold", &entry.breaker.failure_threshold, Positive()});
  b.push_back({section, "open_seconds", &entry.breaker.open_for, Positive()});
  for (const std::string& secret : spec.secrets) {
    b.push_back({section, secret + "_file", &entry.secret_files[secret]});
  }
  return b;
}

template <typename Settings>
TableList ListOf(const ListSpec<Settings>& spec) {
  return {spec.Path(),
          [spec] {
            spec.entries->emplace_back();
            return EntryBindings(spec, spec.entries->back(), spec.Path());
          },
          [spec](const std::string& where, const std::vector<std::string>& keys) {
            ListedProvider<Settings>& entry = spec.entries->back();
            const std::string& kind = entry.settings.provider;
            if (kind.empty()) Fail(where + " has no kind (" + core::ChoiceText(spec.kinds) + ")");
            if (std::find(spec.kinds.begin(), spec.kinds.end(), kind) == spec.kinds.end()) {
              Fail(where + " kind = \"" + kind + "\" is not valid (must be " +
                   core::ChoiceText(spec.kinds) + ")");
            }
            for (const std::string& key : keys) {
              std::string base = key;
              if (base.ends_with("_file") && key != "ca_file") base.resize(base.size() - 5);
              if (const auto owner = spec.key_kind(base); owner && *owner != kind) {
                Fail(where + " (" + kind + "): key " + key + " does not apply to " + kind +
                     " (it is " + *owner + "'s)");
              }
            }
            if (entry.name.empty()) entry.name = kind;
            static const std::regex name_pattern("[a-z][a-z0-9_]{0,31}");
            if (!std::regex_match(entry.name, name_pattern)) {
              Fail(where + " name = \"" + entry.name +
                   "\" is not valid (1 to 32 lowercase letters, digits and '_', starting with a "
                   "letter)");
            }
            entry.keys_set = keys;
          }};
}

template <typename Settings>
void AddListedBindings(const ListSpec<Settings>& spec, std::vector<Binding>& all) {
  for (ListedProvider<Settings>& entry : *spec.entries) {
    std::vector<Binding> b = EntryBindings(spec, entry, spec.Path() + "." + entry.name);
    // The kind and the name are the file's: they say which entry a variable is for.
    std::erase_if(
        b, [](const Binding& binding) { return binding.key == "kind" || binding.key == "name"; });
    all.insert(all.end(), std::make_move_iterator(b.begin()), std::make_move_iterator(b.end()));
  }
}

// The string `key` binds in `bindings`, or null.
std::string* StringOf(std::vector<Binding>& bindings, const std::string& key) {
  for (Binding& binding : bindings) {
    if (binding.key != key) continue;
    if (auto* const* text = std::get_if<std::string*>(&binding.target)) return *text;
  }
  return nullptr;
}

template <typename Settings>
void Complete(const ListSpec<Settings>& spec, const std::vector<std::string>& inherited) {
  if (spec.entries->empty()) return;
  const std::string section = "[channels." + spec.channel + "]";
  if (!spec.section->provider.empty()) {
    Fail(section + " provider and [[" + spec.Path() +
         "]] are both set: with a list of providers, each entry's kind says which it is");
  }
  std::set<std::string> names;
  for (std::size_t i = 0; i < spec.entries->size(); ++i) {
    ListedProvider<Settings>& entry = (*spec.entries)[i];
    const std::string where = "[[" + spec.Path() + "]] #" + std::to_string(i + 1);
    if (!names.insert(entry.name).second) {
      Fail(where + " name = \"" + entry.name +
           "\" is taken by an earlier entry: give each entry its own name");
    }
    std::vector<Binding> own = spec.bindings("", entry.settings, "kind");
    std::vector<Binding> from_section = spec.bindings("", *spec.section, "provider");
    for (const std::string& key : inherited) {
      if (std::find(entry.keys_set.begin(), entry.keys_set.end(), key) != entry.keys_set.end()) {
        continue;
      }
      const auto target =
          std::find_if(own.begin(), own.end(), [&](const Binding& b) { return b.key == key; });
      const auto source = std::find_if(from_section.begin(), from_section.end(),
                                       [&](const Binding& b) { return b.key == key; });
      if (target == own.end() || source == from_section.end()) continue;
      std::visit(
          [&](auto& to) {
            using Target = std::decay_t<decltype(to)>;
            if constexpr (std::is_pointer_v<Target>) {
              *to = **std::get_if<Target>(&source->target);
            }
          },
          target->target);
    }
    for (const auto& [secret, file] : entry.secret_files) {
      if (file.empty()) continue;
      std::string* value = StringOf(own, secret);
      if (value == nullptr) continue;
      try {
        *value = channels::SecretValue({{secret, *value}, {secret + "_file", file}}, secret);
      } catch (const std::invalid_argument& e) {
        Fail(where + " (" + entry.name + "): " + e.what());
      }
    }
  }
}

ListSpec<EmailProvider> EmailList(Config& c) {
  return {"email",       &c.email.providers,    &c.email,    kEmailKinds,
          kEmailSecrets, EmailProviderBindings, EmailKeyKind};
}
ListSpec<SmsProvider> SmsList(Config& c) {
  return {"sms", &c.sms.providers, &c.sms, kSmsKinds, kSmsSecrets, SmsProviderBindings, SmsKeyKind};
}

}  // namespace

std::vector<Binding> EmailProviderBindings(const std::string& section, EmailProvider& e,
                                           const std::string& kind_key) {
  std::vector<std::string> kinds = kEmailKinds;
  if (kind_key == "provider") kinds.emplace_back("sink");
  return {
      {section, kind_key, &e.provider, OneOf(kinds, kind_key == "provider")},
      {section, "smtp_url", &e.smtp.smtp_url},
      {section, "from", &e.smtp.from},
      {section, "username", &e.smtp.username},
      {section, "password", &e.smtp.password},
      {section, "starttls", StartTlsSetting(e.smtp)},
      {section, "ca_file", &e.smtp.ca_file},
      {section, "timeout_seconds", &e.smtp.timeout, Positive()},
      {section, "max_in_flight", &e.smtp.max_in_flight,
       Between(1, channels::email::kMaxEmailInFlight)},
      {section, "ses_region", &e.ses.region},
      {section, "ses_access_key_id", &e.ses.access_key_id},
      {section, "ses_secret_access_key", &e.ses.secret_access_key},
      {section, "ses_session_token", &e.ses.session_token},
      {section, "ses_endpoint", &e.ses.endpoint},
      {section, "mailgun_domain", &e.mailgun.domain},
      {section, "mailgun_api_key", &e.mailgun.api_key},
      {section, "mailgun_base_url", &e.mailgun.base_url},
      {section, "postmark_server_token", &e.postmark.server_token},
      {section, "postmark_message_stream", &e.postmark.message_stream},
      {section, "postmark_base_url", &e.postmark.base_url},
      {section, "sendgrid_api_key", &e.sendgrid.api_key},
      {section, "sendgrid_base_url", &e.sendgrid.base_url},
      {section, "ses_sns_topic_arn", &e.receipts.ses_sns_topic_arn},
      {section, "sendgrid_webhook_public_key", &e.receipts.sendgrid_webhook_public_key},
      {section, "mailgun_webhook_signing_key", &e.receipts.mailgun_webhook_signing_key},
      {section, "postmark_webhook_username", &e.receipts.postmark_webhook_username},
      {section, "postmark_webhook_password", &e.receipts.postmark_webhook_password},
  };
}

std::vector<Binding> SmsProviderBindings(const std::string& section, SmsProvider& s,
                                         const std::string& kind_key) {
  std::vector<std::string> kinds = kSmsKinds;
  if (kind_key == "provider") kinds.emplace_back("sink");
  return {
      {section, kind_key, &s.provider, OneOf(kinds, kind_key == "provider")},
      {section, "base_url", &s.eskiz.base_url},
      {section, "email", &s.eskiz.email},
      {section, "password", &s.eskiz.password},
      {section, "from", &s.eskiz.from},
      {section, "twilio_account_sid", &s.twilio.account_sid},
      {section, "twilio_auth_token", &s.twilio.auth_token},
      {section, "twilio_from", &s.twilio.from},
      {section, "twilio_messaging_service_sid", &s.twilio.messaging_service_sid},
      {section, "twilio_base_url", &s.twilio.base_url},
      {section, "playmobile_base_url", &s.playmobile.base_url},
      {section, "playmobile_login", &s.playmobile.login},
      {section, "playmobile_password", &s.playmobile.password},
      {section, "playmobile_originator", &s.playmobile.originator},
  };
}

std::vector<TableList> ProviderLists(Config& c) {
  return {ListOf(EmailList(c)), ListOf(SmsList(c))};
}

std::vector<Binding> ListedProviderBindings(Config& c) {
  std::vector<Binding> all;
  AddListedBindings(EmailList(c), all);
  AddListedBindings(SmsList(c), all);
  return all;
}

void CompleteProviderLists(Config& c) {
  Complete(EmailList(c), {"from", "timeout_seconds", "max_in_flight"});
  Complete(SmsList(c), {});
}

}  // namespace chopar::app
