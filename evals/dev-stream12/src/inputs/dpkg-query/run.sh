#!/bin/sh
dpkg-query -W -f='${db:Status-Abbrev} ${Package} ${Version} ${Architecture}\n' 'libxcb*'
