#!/bin/sh
cd "$(dirname "$0")" && sha256sum release/*
