#!/bin/sh
# javap disassembly of a value class with a five-field constructor and five getters
cd "$(dirname "$0")" && mkdir -p /tmp/bs16-javap && javac -d /tmp/bs16-javap Reading.java && javap -c -p /tmp/bs16-javap/Reading.class
