#!/bin/sh
# forty sequential shelf-label codes for the label printer
seq -f 'SHELF-B-%03g' 1 40
