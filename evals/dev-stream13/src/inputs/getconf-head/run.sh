#!/bin/sh
getconf -a | head -40
