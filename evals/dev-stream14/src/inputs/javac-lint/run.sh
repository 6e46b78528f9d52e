#!/bin/sh
# javac 17 with every lint category on, warnings only (no class files kept)
cd "$(dirname "$0")" && javac -Xlint:all -d /tmp/bs14-javac Inventory.java 2>&1
