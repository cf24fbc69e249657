/* The viewers of bench/streams.py as one compiled process: thousands of SSE streams on one epoll loop,
 * so the load client costs the shared two cores little next to the stream gateway it measures.
 *
 * stdin, one item a line:  "HOST PORT GRACE_S N", then N lines "GAME_ID AFTER TOKEN" (TOKEN "-": none).
 * Opens the N streams (Last-Event-ID: AFTER) at a steady pace and prints "ready" once every answer's
 * head has arrived. Then reads lines "GAME_ID FINAL" up to a line "stop": from then on a viewer whose
 * game reached FINAL is closed; after every viewer is closed (or GRACE_S seconds) prints one JSON line:
 * viewers, complete (every event after AFTER exactly once, in order, up to FINAL), incomplete,
 * failed_connections, events_delivered, delivery_latency {p50_ms, p99_ms, max_ms}: the time an event's
 * bytes were read here minus its "recorded_at" (the games service's accept time; one machine, one clock),
 * wakeups and sockets_per_wakeup (how often the loop woke while the movers ran, and how many streams it
 * read each time).
 *
 * Its own cost is kept off the shared cores: edge-triggered epoll (no re-poll of every ready socket), one
 * wake-up per batch of the gateway rather than per few sockets (a 1 ms pause, counted in the latency),
 * and the timestamps parsed by hand (libc's timegm once a minute).
 *
 * The answer's chunk framing is skipped as the SSE lines are scanned ("id: " and "data: " lines). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

#define BUF 65536

typedef struct {
    int fd, head_done, open, ordered, game;
    long first, last, events, final;
    size_t len;
    char *buf;
    char *request;
} viewer;

static double *lat;
static size_t nlat, caplat;
static char games[64][64];
static long finals[64];
static int ngames;

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static int game_index(const char *id) {
    for (int g = 0; g < ngames; g++)
        if (strcmp(games[g], id) == 0) return g;
    if (ngames == 64) { fprintf(stderr, "too many games\n"); exit(2); }
    snprintf(games[ngames], sizeof games[0], "%s", id);
    finals[ngames] = -1;
    return ngames++;
}

static int digits(const char *s, int n) {
    int v = 0;
    for (int k = 0; k < n; k++) {
        if (s[k] < '0' || s[k] > '9') return -1;
        v = v * 10 + (s[k] - '0');
    }
    return v;
}

/* "2026-12-01T19:48:05.123456+00:00" (or Z): seconds since the epoch, or -1. Every viewer of a game reads
 * the same events, so the start of the minute is remembered: libc's timegm runs once a minute, not once
 * per viewer and event. */
static double parse_iso(const char *s, size_t len) {
    static char minute[16];
    static double minute_t = -1;
    if (len < 19) return -1;
    int y = digits(s, 4), mo = digits(s + 5, 2), d = digits(s + 8, 2);
    int h = digits(s + 11, 2), mi = digits(s + 14, 2), se = digits(s + 17, 2);
    if (y < 0 || mo < 0 || d < 0 || h < 0 || mi < 0 || se < 0 || s[10] != 'T') return -1;
    if (memcmp(s, minute, 16) != 0) {
        struct tm tm = {0};
        tm.tm_year = y - 1900; tm.tm_mon = mo - 1; tm.tm_mday = d;
        tm.tm_hour = h; tm.tm_min = mi;
        minute_t = (double)timegm(&tm);
        memcpy(minute, s, 16);
    }
    double t = minute_t + se;
    const char *p = s + 19, *end = s + len;
    if (p < end && *p == '.') {
        double scale = 0.1;
        for (p++; p < end && *p >= '0' && *p <= '9'; p++, scale /= 10) t += (*p - '0') * scale;
    }
    if (p + 6 <= end && (*p == '+' || *p == '-')) {
        int oh = digits(p + 1, 2), om = digits(p + 4, 2);
        if (oh >= 0 && om >= 0 && p[3] == ':') t -= (*p == '+' ? 1 : -1) * (oh * 3600 + om * 60);
    }
    return t;
}

static void sample(double v) {
    if (nlat == caplat) {
        caplat = caplat ? caplat * 2 : 1 << 20;
        lat = realloc(lat, caplat * sizeof *lat);
        if (!lat) { perror("realloc"); exit(2); }
    }
    lat[nlat++] = v;
}

static void scan_line(viewer *v, const char *line, size_t n, double at) {
    if (n > 4 && memcmp(line, "id: ", 4) == 0) {
        long id = strtol(line + 4, NULL, 10);
        if (id != v->last + 1) v->ordered = 0;
        v->last = id;
        v->events++;
    } else if (n > 6 && memcmp(line, "data: ", 6) == 0) {
        const char *key = memmem(line, n, "\"recorded_at\": \"", 16);
        if (key) {
            double t = parse_iso(key + 16, (size_t)(line + n - (key + 16)));
            if (t > 0) sample(at - t);
        }
    }
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void) {
    char host[256];
    int port, n;
    double grace;
    if (scanf("%255s %d %lf %d", host, &port, &grace, &n) != 4) { fprintf(stderr, "bad header\n"); return 2; }
    viewer *vs = calloc(n, sizeof *vs);
    for (int i = 0; i < n; i++) {
        char game[64], token[256];
        long after;
        if (scanf("%63s %ld %255s", game, &after, token) != 3) { fprintf(stderr, "bad viewer\n"); return 2; }
        vs[i].game = game_index(game);
        vs[i].first = vs[i].last = after;
        vs[i].ordered = 1;
        vs[i].buf = malloc(BUF);
        char auth[300] = "";
        if (strcmp(token, "-") != 0) snprintf(auth, sizeof auth, "Authorization: Bearer %s\r\n", token);
        if (asprintf(&vs[i].request, "GET /v1/games/%s/events/stream?timeout=3600 HTTP/1.1\r\nHost: %s:%d\r\n"
                     "Accept: text/event-stream\r\nLast-Event-ID: %ld\r\n%s\r\n", game, host, port, after, auth) < 0)
            return 2;
    }
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port)};
    inet_pton(AF_INET, host, &addr.sin_addr);
    int ep = epoll_create1(0);
    struct epoll_event evs[512];
    int heads = 0, failed = 0, closed = 0, stopping = 0;
    double stop_at = 0;
    fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
    char ctl[4096];
    size_t ctl_len = 0;
    int opened = 0, ready = 0;
    long waits = 0, woken = 0; /* epoll_wait calls that returned something, and the sockets they returned */

    for (;;) {
        /* open them at a steady pace (100 every 50 ms), not one SYN flood */
        for (int k = 0; k < 100 && opened < n; k++, opened++) {
            viewer *v = &vs[opened];
            v->fd = socket(AF_INET, SOCK_STREAM, 0);
            if (v->fd < 0 || connect(v->fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
                perror("connect");
                failed++; closed++;
                continue;
            }
            int one = 1;
            setsockopt(v->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            if (write(v->fd, v->request, strlen(v->request)) < 0) perror("write");
            fcntl(v->fd, F_SETFL, fcntl(v->fd, F_GETFL) | O_NONBLOCK);
            v->open = 1;
            struct epoll_event e = {.events = EPOLLIN | EPOLLET, .data.u32 = (uint32_t)opened};
            epoll_ctl(ep, EPOLL_CTL_ADD, v->fd, &e);
        }
        if (!ready && heads + failed == n) {
            printf("ready\n");
            fflush(stdout);
            ready = 1;
            struct epoll_event e = {.events = EPOLLIN, .data.u32 = 0xffffffffu};
            epoll_ctl(ep, EPOLL_CTL_ADD, 0, &e);
        }
        if (stopping && (closed == n || now_s() > stop_at)) break;
        int got = epoll_wait(ep, evs, 512, opened < n ? 50 : 200);
        if (ready && got > 0 && got < 256) {
            /* a batch goes out to a game's viewers socket by socket: waking for each few of them would cost
             * both processes a wake-up (a context switch, an IPI in a VM) per few sockets. So the client
             * lets the rest of the batch arrive (1 ms, counted in the delivery latency it measures, since
             * the read time is taken after it) and reads them all on one wake-up. */
            struct timespec pause = {0, 1000000};
            nanosleep(&pause, NULL);
            int more = epoll_wait(ep, evs + got, 512 - got, 0); /* edge-triggered: only the ones since */
            if (more > 0) got += more;
        }
        double at = now_s();
        if (got > 0 && stopping == 0 && ready) { waits++; woken += got; }
        for (int j = 0; j < got; j++) {
            uint32_t i = evs[j].data.u32;
            if (i == 0xffffffffu) { /* control lines: "GAME FINAL" ... "stop" */
                ssize_t r = read(0, ctl + ctl_len, sizeof ctl - 1 - ctl_len);
                if (r <= 0) { epoll_ctl(ep, EPOLL_CTL_DEL, 0, NULL); continue; }
                ctl_len += r;
                ctl[ctl_len] = 0;
                char *line = ctl, *nl;
                while ((nl = strchr(line, '\n'))) {
                    *nl = 0;
                    char game[64];
                    long final;
                    if (strcmp(line, "stop") == 0) {
                        stopping = 1;
                        stop_at = at + grace;
                        for (int k = 0; k < n; k++) {
                            viewer *v = &vs[k];
                            v->final = finals[v->game];
                            if (v->open && v->last >= v->final) { close(v->fd); v->open = 0; closed++; }
                        }
                    } else if (sscanf(line, "%63s %ld", game, &final) == 2) {
                        finals[game_index(game)] = final;
                    }
                    line = nl + 1;
                }
                ctl_len = strlen(line);
                memmove(ctl, line, ctl_len);
                continue;
            }
            viewer *v = &vs[i];
            /* edge-triggered: read until the socket is drained (a read shorter than the room asked for) */
            for (int more = 1; more && v->open;) {
                size_t room = BUF - v->len;
                ssize_t r = recv(v->fd, v->buf + v->len, room, 0);
                if (r < 0 && errno == EINTR) continue;
                if (r < 0 && errno == EAGAIN) break;
                if (r <= 0) {
                    if (!v->head_done) { failed++; v->head_done = 1; }
                    close(v->fd); v->open = 0; closed++;
                    break;
                }
                more = (size_t)r == room;
                v->len += r;
                char *p = v->buf, *end = v->buf + v->len;
                if (!v->head_done) {
                    char *h = memmem(p, v->len, "\r\n\r\n", 4);
                    if (!h) continue;
                    v->head_done = 1;
                    if (strncmp(p, "HTTP/1.1 200", 12) == 0) heads++; else failed++;
                    p = h + 4;
                }
                char *nl;
                while ((nl = memchr(p, '\n', end - p))) {
                    scan_line(v, p, nl - p, at);
                    p = nl + 1;
                }
                v->len = end - p;
                memmove(v->buf, p, v->len);
                if (v->len == BUF) v->len = 0; /* a line longer than the buffer: not an event line */
            }
            if (!v->open) continue;
            if (stopping && v->last >= v->final) { close(v->fd); v->open = 0; closed++; }
        }
    }
    int complete = 0;
    long delivered = 0;
    for (int k = 0; k < n; k++) {
        complete += vs[k].ordered && vs[k].last == vs[k].final;
        delivered += vs[k].events;
    }
    printf("{\"viewers\": %d, \"complete\": %d, \"incomplete\": %d, \"failed_connections\": %d, "
           "\"events_delivered\": %ld, \"delivery_latency\": {", n, complete, n - complete, failed, delivered);
    if (nlat) {
        qsort(lat, nlat, sizeof *lat, cmp);
        size_t i99 = (size_t)(nlat * 0.99);
        if (i99 >= nlat) i99 = nlat - 1;
        printf("\"p50_ms\": %.2f, \"p99_ms\": %.2f, \"max_ms\": %.2f, \"samples\": %zu",
               lat[nlat / 2] * 1000, lat[i99] * 1000, lat[nlat - 1] * 1000, nlat);
    }
    printf("}, \"wakeups\": %ld, \"sockets_per_wakeup\": %.1f, \"client\": \"compiled (C, epoll)\"}\n",
           waits, waits ? (double)woken / waits : 0.0);
    return 0;
}
