#!/bin/sh
factor $(seq 360 399)
