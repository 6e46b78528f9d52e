#!/bin/sh
# command: cd p11_tar && sha256sum site/css/*.css site/js/*.js site/img/*.jpg
cd "$(dirname "$0")/../p11_tar" && sha256sum site/css/*.css site/js/*.js site/img/*.jpg
