#include "db/actor.hpp"

#include <utility>

namespace chopar::db {
namespace {

thread_local std::string current_actor;

}  // namespace

ActorScope::ActorScope(std::string actor)
    : previous_(std::exchange(current_actor, std::move(actor))) {}

ActorScope::~ActorScope() { current_actor = std::move(previous_); }

const std::string& CurrentActor() { return current_actor; }

}  // namespace chopar::db
