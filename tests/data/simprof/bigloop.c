/* argv[1] passes over a loop body of 512 dependent multiply-adds, each
 * kept apart by an empty asm so the compiler cannot fold them: about 5 KB
 * of straight-line code, more than a 1 KB instruction cache holds and far
 * less than a 32 KB one. */
#include <stdlib.h>

volatile unsigned long sink;     /* keeps the loop's result alive */

#define S(k) x = x * 2654435761ul + (k); __asm__ volatile("" : "+r"(x));
#define S8(k) S(k) S(k + 1) S(k + 2) S(k + 3) S(k + 4) S(k + 5) S(k + 6) S(k + 7)
#define S64(k) S8(k) S8(k + 8) S8(k + 16) S8(k + 24) S8(k + 32) S8(k + 40) S8(k + 48) S8(k + 56)

int main(int argc, char **argv)
{
    long passes = atol(argv[1]);
    unsigned long x = 1;
    for (long p = 0; p < passes; p++) {
        S64(0) S64(64) S64(128) S64(192) S64(256) S64(320) S64(384) S64(448)
    }
    sink = x;
    return 0;
}
