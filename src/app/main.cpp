#include "app/cli.hpp"

int main(int argc, char** argv) { return chopar::app::RunCli(argc, argv); }
