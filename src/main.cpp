#include "app/app.h"

int main(int argc, char** argv) {
  return dagadvisor::app::run(argc, argv);
}
