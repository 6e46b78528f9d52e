#!/bin/sh
# javac with all lint warnings on a class that uses raw collections and deprecated Date methods
cd "$(dirname "$0")" && javac -Xlint:all -d /tmp/bs16-javac Inventory.java 2>&1
