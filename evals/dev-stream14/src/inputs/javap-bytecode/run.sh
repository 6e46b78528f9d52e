#!/bin/sh
# compile the bean and print its bytecode with javap
cd "$(dirname "$0")" && javac -d /tmp/bs14-javap Reading.java && javap -c -p /tmp/bs14-javap/Reading.class
