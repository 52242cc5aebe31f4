# SPDX-License-Identifier: Apache-2.0
# cmake -DREADME=README.md -DEXAMPLE=examples/00_quickstart/main.cpp -P readme_quickstart.cmake
# Fails unless the ```cpp block of README's section "## Use it from your project" is EXAMPLE,
# the whole file, word for word. (No list commands: C++ is full of semicolons.)
cmake_minimum_required(VERSION 3.25)
file(READ ${README} readme)
file(READ ${EXAMPLE} example)

set(heading "\n## Use it from your project\n")
string(FIND "${readme}" "${heading}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${README}: no section \"## Use it from your project\"")
endif()
string(LENGTH "${heading}" length)
math(EXPR at "${at} + ${length}")
string(SUBSTRING "${readme}" ${at} -1 section)
string(FIND "${section}" "\n## " next)
if(NOT next EQUAL -1)
  string(SUBSTRING "${section}" 0 ${next} section)
endif()

string(FIND "${section}" "\n```cpp\n" open)
if(open EQUAL -1)
  message(FATAL_ERROR "${README}: no ```cpp block in \"## Use it from your project\"")
endif()
math(EXPR open "${open} + 8")
string(SUBSTRING "${section}" ${open} -1 block)
string(FIND "${block}" "\n```" close)
if(close EQUAL -1)
  message(FATAL_ERROR "${README}: the ```cpp block in \"## Use it from your project\" never ends")
endif()
math(EXPR close "${close} + 1")  # the block's last line keeps its newline, as the file's does
string(SUBSTRING "${block}" 0 ${close} block)

if(block STREQUAL example)
  return()
endif()
# Name the first line that differs.
set(line 1)
while(TRUE)
  string(FIND "${block}" "\n" a)
  string(FIND "${example}" "\n" b)
  if(a EQUAL -1 OR b EQUAL -1)  # one of them has ended
    set(block_line "${block}")
    set(example_line "${example}")
    break()
  endif()
  string(SUBSTRING "${block}" 0 ${a} block_line)
  string(SUBSTRING "${example}" 0 ${b} example_line)
  if(NOT block_line STREQUAL example_line)
    break()
  endif()
  math(EXPR a "${a} + 1")
  math(EXPR b "${b} + 1")
  string(SUBSTRING "${block}" ${a} -1 block)
  string(SUBSTRING "${example}" ${b} -1 example)
  math(EXPR line "${line} + 1")
endwhile()
message(FATAL_ERROR "README.md's ```cpp block in \"## Use it from your project\" differs from "
                    "${EXAMPLE} at line ${line} of the file:\n"
                    "  README:  ${block_line}\n  example: ${example_line}\n"
                    "Make the README block the whole file, word for word.")
