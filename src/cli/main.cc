// yardstick: does this node or cluster perform like the reference it was built to match?
#include "cli/app.h"

int main(int argc, char** argv) { return ys::cli::Main(argc, argv); }
