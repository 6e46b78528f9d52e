#!/bin/sh
# build a throwaway i18n tree (one messages.po and .mo per locale, plus a README per domain) in /tmp and list every file in it
rm -rf /tmp/bs19-i18n && for d in shop admin; do for l in cs da de el es fi fr hu it ja nl pl pt_BR sv tr zh_CN; do mkdir -p /tmp/bs19-i18n/$d/locale/$l/LC_MESSAGES && : > /tmp/bs19-i18n/$d/locale/$l/LC_MESSAGES/$d.po && : > /tmp/bs19-i18n/$d/locale/$l/LC_MESSAGES/$d.mo; done; : > /tmp/bs19-i18n/$d/README.md; done
cd /tmp/bs19-i18n && find . -type f | LC_ALL=C sort
