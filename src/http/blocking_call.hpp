#pragma once

// clang-format off
// Boost.Asio 1.74's awaitable.hpp uses std::exchange without including it.
#include <utility>
// clang-format on

#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <type_traits>
#include <utility>

namespace chopar::http {

// Runs `fn` (which may block: database work) on `pool` and resumes the
// calling coroutine on its own executor — for a connection, its strand — with
// the result. IO threads never run `fn`. `fn` must not throw (catch and turn
// errors into a value first) and its result must be default-constructible
// and movable. The caller keeps anything `fn` refers to alive: the coroutine
// is suspended until `fn` has returned.
template <typename Fn>
boost::asio::awaitable<std::invoke_result_t<Fn&>> RunBlocking(boost::asio::thread_pool& pool,
                                                              Fn fn) {
  using Result = std::invoke_result_t<Fn&>;
  auto initiate = [&pool](auto handler, Fn work) {
    boost::asio::post(pool, [handler = std::move(handler), work = std::move(work)]() mutable {
      Result result = work();
      auto executor = boost::asio::get_associated_executor(handler);
      boost::asio::dispatch(executor,
                            [handler = std::move(handler), result = std::move(result)]() mutable {
                              std::move(handler)(std::move(result));
                            });
    });
  };
  co_return co_await boost::asio::async_initiate<decltype(boost::asio::use_awaitable),
                                                 void(Result)>(initiate, boost::asio::use_awaitable,
                                                               std::move(fn));
}

}  // namespace chopar::http
