# plant_mistake.cmake — writes answer.cpp with one usual mistake planted in it, for the suite to prove that the
# exercise's check names that mistake (exercises/CMakeLists.txt, exercises/README.md).
#
#   cmake -DMISTAKES=exercises/NAME/mistakes.txt -DANSWER=exercises/NAME/answer.cpp -DMISTAKE=sign \
#         -DOUT=build/.../mistake_sign.cpp -P plant_mistake.cmake
#
# mistakes.txt holds blocks of three lines, a blank line or a '#' comment between them:
#   mistake: sign                                  the name the check's "diagnosis:" line must give
#   replace: dxr[j] = yr[j] * (gr[j] - g_dot_y);   text of answer.cpp, found exactly once
#   with:    dxr[j] = yr[j] * (g_dot_y - gr[j]);   what a learner might write instead
# Spaces after "replace:" and "with:" are not part of the text. The files are read whole and never split into
# CMake lists, so the semicolons of C++ pass through untouched.
foreach(variable MISTAKES ANSWER MISTAKE OUT)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "plant_mistake.cmake: -D${variable}=… is missing")
  endif()
endforeach()
file(READ "${MISTAKES}" mistakes)
file(READ "${ANSWER}" answer)

string(REGEX MATCH "(^|\n)mistake: ${MISTAKE}\nreplace: *([^\n]*)\nwith: *([^\n]*)" block "${mistakes}")
if(NOT block)
  message(FATAL_ERROR "${MISTAKES}: no block 'mistake: ${MISTAKE}' followed by a 'replace:' and a 'with:' line")
endif()
set(original "${CMAKE_MATCH_2}")
set(planted "${CMAKE_MATCH_3}")

# The replaced text must be found exactly once, so that a changed answer.cpp fails the build here, by name.
string(FIND "${answer}" "${original}" first)
string(FIND "${answer}" "${original}" last REVERSE)
if(first EQUAL -1)
  message(FATAL_ERROR "${MISTAKES}, mistake '${MISTAKE}': ${ANSWER} has no text '${original}'")
endif()
if(NOT first EQUAL last)
  message(FATAL_ERROR "${MISTAKES}, mistake '${MISTAKE}': '${original}' is found more than once in ${ANSWER}")
endif()
string(REPLACE "${original}" "${planted}" wrong "${answer}")
file(WRITE "${OUT}.new" "// Generated from ${ANSWER} with the mistake '${MISTAKE}' of ${MISTAKES} planted.\n${wrong}")
file(RENAME "${OUT}.new" "${OUT}")
