#include "channels/telegram/texts.hpp"

namespace chopar::channels::telegram {
namespace {

constexpr TelegramTexts kEnglish{
    "Connected! You will receive your notifications in this chat.",
    "This link has expired. Please open a new Telegram link from the app.",
    "This link is not valid. Please open a new Telegram link from the app.",
    "This link has already been used. Please open a new Telegram link from the app.",
    "To receive notifications here, open the Telegram link from the app.",
};
constexpr TelegramTexts kUzbek{
    "Tayyor! Endi bildirishnomalaringizni shu chatda olasiz.",
    "Bu havolaning muddati tugagan. Ilovadan yangi Telegram havolasini oching.",
    "Bu havola yaroqsiz. Ilovadan yangi Telegram havolasini oching.",
    "Bu havola allaqachon ishlatilgan. Ilovadan yangi Telegram havolasini oching.",
    "Bildirishnomalarni shu yerda olish uchun ilovadagi Telegram havolasini oching.",
};

}  // namespace

const TelegramTexts& TelegramTextsFor(std::string_view locale) {
  if (locale == "uz" || locale.starts_with("uz-")) return kUzbek;
  return kEnglish;
}

}  // namespace chopar::channels::telegram
