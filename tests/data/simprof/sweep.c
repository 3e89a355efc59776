/* Reads every 64-byte line of a buffer of argv[1] KB, argv[2] times over:
 * with an L1 that holds the buffer only the first pass misses. */
#include <stdlib.h>

int main(int argc, char **argv)
{
    long kb = atol(argv[1]), passes = atol(argv[2]);
    volatile char *buf = calloc(kb, 1024);
    long sum = 0;
    for (long p = 0; p < passes; p++)
        for (long i = 0; i < kb * 1024; i += 64)
            sum += buf[i];
    return (int)(sum & 1);
}
