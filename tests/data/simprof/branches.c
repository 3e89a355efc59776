/* argv[1] iterations of a loop with one conditional branch on a bit that
 * either alternates (argv[2] = 0: a gshare predictor learns it) or comes
 * from a xorshift generator (argv[2] = 1: it mispredicts about half). */
#include <stdlib.h>

volatile unsigned long sink;     /* keeps the loop's result alive */

int main(int argc, char **argv)
{
    long n = atol(argv[1]), random = atol(argv[2]);
    unsigned long x = 88172645463325252ul, taken = 0;
    for (long i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if (random ? (x >> 32) & 1 : i & 1) {
            taken++;
            __asm__ volatile("" ::: "memory");   /* a real jump, not a conditional move */
        }
    }
    sink = taken;
    return 0;
}
