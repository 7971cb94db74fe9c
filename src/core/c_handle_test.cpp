#include "core/c_handle.hpp"

#include <gtest/gtest.h>

#include <utility>

namespace chopar::core {
namespace {

// A C-style library: handles from Open(), given back with Close().
struct Widget {
  int id = 0;
};
int closed = 0;
int last_closed = 0;
void Close(Widget* widget) {
  ++closed;
  last_closed = widget->id;
}

using WidgetHandle = CHandle<Widget, Close>;

TEST(CHandleTest, FreesWithTheLibrarysFunctionOnceWhenTheLastOwnerGoes) {
  closed = 0;
  Widget widget{7};
  {
    WidgetHandle first(&widget);
    WidgetHandle second = std::move(first);
    EXPECT_EQ(first.get(), nullptr);
    EXPECT_EQ(closed, 0);
  }
  EXPECT_EQ(closed, 1);
  EXPECT_EQ(last_closed, 7);
}

TEST(CHandleTest, ANullHandleFreesNothingAndReleaseGivesUpOwnership) {
  closed = 0;
  { const WidgetHandle none; }
  Widget widget{3};
  {
    WidgetHandle owner(&widget);
    EXPECT_EQ(owner.release(), &widget);
  }
  EXPECT_EQ(closed, 0);
  static_assert(sizeof(WidgetHandle) == sizeof(Widget*), "no room spent on the deleter");
}

}  // namespace
}  // namespace chopar::core
