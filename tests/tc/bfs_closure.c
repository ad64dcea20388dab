/* bfs_closure: the transitive closure of a small graph by breadth-first
 * search from every vertex -- the tests' independent oracle for the pairs
 * ravel-tc writes.  It shares nothing with ravel: it reads the entries of a
 * Matrix Market file itself (skipping '%' lines and the size line) and
 * prints every pair "src<TAB>dst" reachable by a path of one or more edges,
 * ids as written in the file.
 * usage: bfs_closure FILE.mtx > pairs.tsv */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint64_t src, dst;
} edge;

static int by_src(const void *a, const void *b)
{
    const edge *x = a, *y = b;
    return x->src < y->src ? -1 : x->src > y->src;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: bfs_closure FILE.mtx\n");
        return 2;
    }
    FILE *in = fopen(argv[1], "r");
    if (!in) {
        perror(argv[1]);
        return 1;
    }
    char line[512];
    int seen_size = 0;
    size_t n = 0, cap = 1024;
    uint64_t vmax = 0;
    edge *edges = malloc(cap * sizeof *edges);
    while (edges && fgets(line, sizeof line, in)) {
        unsigned long long a, b;
        if (line[0] == '%' || sscanf(line, "%llu %llu", &a, &b) != 2)
            continue;
        if (!seen_size) {
            seen_size = 1;
            continue;
        }
        if (n == cap)
            edges = realloc(edges, (cap *= 2) * sizeof *edges);
        if (!edges)
            break;
        edges[n].src = a;
        edges[n].dst = b;
        n++;
        vmax = a > vmax ? a : vmax;
        vmax = b > vmax ? b : vmax;
    }
    fclose(in);
    if (!edges) {
        fprintf(stderr, "bfs_closure: out of memory\n");
        return 1;
    }
    qsort(edges, n, sizeof *edges, by_src);
    size_t V = (size_t)vmax + 1;
    size_t *first = calloc(V + 1, sizeof *first);
    uint64_t *queue = malloc(V * sizeof *queue);
    uint64_t *mark = calloc(V, sizeof *mark); /* visited in BFS number mark */
    if (!first || !queue || !mark)
        return 1;
    for (size_t i = 0; i < n; i++)
        first[edges[i].src + 1]++;
    for (size_t v = 0; v < V; v++)
        first[v + 1] += first[v];
    for (uint64_t s = 0; s < V; s++) {
        size_t head = 0, tail = 0;
        /* Start from s's successors: paths of one or more edges. */
        for (size_t i = first[s]; i < first[s + 1]; i++)
            if (mark[edges[i].dst] != s + 1) {
                mark[edges[i].dst] = s + 1;
                queue[tail++] = edges[i].dst;
            }
        while (head < tail) {
            uint64_t v = queue[head++];
            printf("%llu\t%llu\n", (unsigned long long)s, (unsigned long long)v);
            for (size_t i = first[v]; i < first[v + 1]; i++)
                if (mark[edges[i].dst] != s + 1) {
                    mark[edges[i].dst] = s + 1;
                    queue[tail++] = edges[i].dst;
                }
        }
    }
    free(edges);
    free(first);
    free(queue);
    free(mark);
    return 0;
}
