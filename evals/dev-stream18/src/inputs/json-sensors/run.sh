#!/bin/sh
cd "$(dirname "$0")" && python3 -m json.tool --indent 2 sensors.json
