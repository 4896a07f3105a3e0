# CMake generated Testfile for 
# Source directory: /work/main/proto
# Build directory: /work/main/build/proto
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
