// doctest_main.cpp — the entry point of both test programs (doctest supplies main()).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
