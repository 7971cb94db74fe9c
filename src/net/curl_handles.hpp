#pragma once

#include <curl/curl.h>

#include <memory>

namespace chopar::net {

// Move-only owners of libcurl's handles: the easy handle of one transfer
// (and its connection cache), the multi handle that drives several, a
// header or recipient list, a parsed URL (the URL API), and a string
// libcurl allocated. Each frees its handle with the matching libcurl
// call; a null handle is fine. Not thread-safe (nor are the handles).
struct CurlEasyDeleter {
  void operator()(CURL* easy) const noexcept { curl_easy_cleanup(easy); }
};
struct CurlMultiDeleter {
  void operator()(CURLM* multi) const noexcept { curl_multi_cleanup(multi); }
};
struct CurlSlistDeleter {
  void operator()(curl_slist* list) const noexcept { curl_slist_free_all(list); }
};
using CurlEasy = std::unique_ptr<CURL, CurlEasyDeleter>;
using CurlMulti = std::unique_ptr<CURLM, CurlMultiDeleter>;
struct CurlUrlDeleter {
  void operator()(CURLU* url) const noexcept { curl_url_cleanup(url); }
};
struct CurlStringDeleter {
  void operator()(char* text) const noexcept { curl_free(text); }
};
using CurlSlist = std::unique_ptr<curl_slist, CurlSlistDeleter>;
using CurlUrl = std::unique_ptr<CURLU, CurlUrlDeleter>;
using CurlString = std::unique_ptr<char, CurlStringDeleter>;

}  // namespace chopar::net
