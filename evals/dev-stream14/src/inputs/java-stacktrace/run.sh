#!/bin/sh
# compile and run the tree walker; the exception trace goes to stderr
cd "$(dirname "$0")" && javac -d /tmp/bs14-walker Walker.java && java -cp /tmp/bs14-walker Walker 2>&1
