/* Two threads, each spinning a known number of times: n iterations of a
 * 4-instruction loop (add, add, sub, jnz); each prints its Linux thread id. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
/* n iterations of a 4-instruction loop: add, add, sub, jnz */
static void spin(long n)
{
    long a = 0;
    __asm__ volatile("1:\n\tadd $1, %0\n\tadd $2, %0\n\tsub $1, %1\n\tjnz 1b" : "+r"(a), "+r"(n));
}
static void *worker(void *arg)
{
    long n = (long)arg;
    printf("tid %ld iterations %ld\n", (long)syscall(SYS_gettid), n);
    fflush(stdout);
    spin(n);
    return NULL;
}
int main(int argc, char **argv)
{
    long a = atol(argv[1]), b = atol(argv[2]);
    pthread_t t;
    pthread_create(&t, NULL, worker, (void *)b);
    worker((void *)a);
    pthread_join(t, NULL);
    return 0;
}
