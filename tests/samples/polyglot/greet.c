#include <stdio.h>

/* Prints a greeting for the name. */
int greet(const char *name)
{
    printf("hi %s }\n", name);
    return '}';
}
