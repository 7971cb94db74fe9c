#pragma once

#include <curl/curl.h>

#include "core/c_handle.hpp"

namespace chopar::net {

// Owners of libcurl's handles (core/c_handle.hpp): the easy handle of one
// transfer (and its connection cache), the multi handle that drives several,
// a header or recipient list, a parsed URL (the URL API), and a string
// libcurl allocated. Each frees its handle with the matching libcurl call;
// a null handle is fine. Not thread-safe (nor are the handles).
using CurlEasy = core::CHandle<CURL, curl_easy_cleanup>;
using CurlMulti = core::CHandle<CURLM, curl_multi_cleanup>;
using CurlSlist = core::CHandle<curl_slist, curl_slist_free_all>;
using CurlUrl = core::CHandle<CURLU, curl_url_cleanup>;
using CurlString = core::CHandle<char, curl_free>;

}  // namespace chopar::net
