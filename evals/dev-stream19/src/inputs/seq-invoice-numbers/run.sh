#!/bin/sh
# sixty invoice numbers, one per line
seq -f "INV-2027-%04g" 1 60
