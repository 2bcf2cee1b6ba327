include(FetchContent)
FetchContent_Declare(atomcheck
  GIT_REPOSITORY ${CMAKE_CURRENT_SOURCE_DIR}/../atomcheck  # or the URL of your clone
  GIT_TAG main)                                            # or a tag or commit
FetchContent_MakeAvailable(atomcheck)
