#include <stdio.h>
int f1(void) { int a; int b; int c; return 0; }
int f2(void) { int a; int b; int c; return 0; }
int f3(void) { int a; int b; int c; return 0; }
int main(void) { printf("%d\n", f1() + f2() + f3()); return 0; }
