// netlink-route: writes a chunk of rtnetlink route messages (RTM_NEWROUTE / RTM_DELROUTE, encoded by
// src/fib/netlink-encode.ts) to the kernel in as few sendmsg(2) calls as the socket allows, off the main
// thread, and answers which messages the kernel refused. `ip -batch` sends one request and waits for one
// acknowledgement per route; this sends a whole chunk at once (docs/performance.md, BGP, Session 8).
//
// Acknowledgements: the kernel always answers a refused message (NLMSG_ERROR with its errno) and answers a
// successful one only when asked (NLM_F_ACK). So only the last message of each sendmsg asks: its answer
// marks the batch as processed, and every other answer is a failure, named by its sequence number. The
// kernel processes the messages inside our sendmsg call (rtnetlink runs in the sender's context), so when
// sendmsg returns every answer is already queued on the socket: it is drained without waiting. Answers the
// socket could not hold (ENOBUFS) leave those messages' fate unknown: they are reported as failed
// ("acknowledgements lost"), and the caller's kernel view (fed by the kernel's route notifications) settles
// the truth. A sendmsg batch is sized so that this cannot happen: at most rcvbuf / ACK_COST messages.
//
// One socket per handle, NETLINK_CAP_ACK (answers carry only the header of the refused message) and
// NETLINK_EXT_ACK (the kernel's message, e.g. "Nexthop has invalid gateway"). JS keeps at most one
// write in flight per handle (the async work owns the socket until it completes).
//
// Built by the repository's scripts/build-native.mjs with gcc against the node-api-headers package (no node-gyp):
//   gcc -O2 -shared -fPIC -I<node-api-headers>/include native/netlink-route.c -o dist/native/netlink-route.node
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include <node_api.h>

#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif
#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif

// Receive-buffer bytes one error answer may take (skb truesize of a capped NLMSGERR with an extack text is
// ~768 B; doubled for margin). Keep in step with nothing in JS: the sizing is the addon's own business.
#define ACK_COST 2048
// Upper bound of one sendmsg (the kernel allocates the request as one skb).
#define SEND_MAX_BYTES (1 << 20)
#define RECV_BYTES 65536
#define MSG_TEXT 160

typedef struct {
  int fd;
  int busy;
  int closed;
  uint32_t seq;
  size_t max_bytes;
  unsigned max_msgs;
} nl_t;

typedef struct {
  uint32_t index;
  char text[MSG_TEXT];
} failure_t;

typedef struct {
  nl_t *nl;
  napi_async_work work;
  napi_ref buffer_ref;
  napi_ref handle_ref;
  napi_ref callback_ref;
  uint8_t *data;
  size_t len;
  uint32_t count;
  uint32_t sends;
  failure_t *failures;
  uint32_t nfail;
  uint32_t capfail;
  uint8_t *rbuf;
} job_t;

static void fail_text(job_t *j, uint32_t index, int err, const char *ext) {
  if (j->nfail == j->capfail) {
    uint32_t cap = j->capfail ? j->capfail * 2 : 16;
    failure_t *f = realloc(j->failures, cap * sizeof *f);
    if (f == NULL) return;  // out of memory: this failure goes unreported; the kernel view settles it
    j->failures = f;
    j->capfail = cap;
  }
  failure_t *f = &j->failures[j->nfail++];
  f->index = index;
  // The same text ip prints, so logs and the programmer's "already gone" test read alike for both writers.
  if (ext != NULL && ext[0] != '\0') snprintf(f->text, sizeof f->text, "Error: %s.", ext);
  else {
    char buf[96];
    snprintf(f->text, sizeof f->text, "RTNETLINK answers: %s", strerror_r(err, buf, sizeof buf));
  }
}

/** The extack text of an NLMSGERR answer (NLMSGERR_ATTR_MSG), or NULL. */
static const char *ext_text(const struct nlmsghdr *h) {
  if (!(h->nlmsg_flags & NLM_F_ACK_TLVS)) return NULL;
  const struct nlmsgerr *e = NLMSG_DATA(h);
  size_t off = NLMSG_HDRLEN + sizeof *e;  // capped: only the refused message's header follows
  if (!(h->nlmsg_flags & NLM_F_CAPPED)) off += NLMSG_ALIGN(e->msg.nlmsg_len) - NLMSG_HDRLEN;
  while (off + NLA_HDRLEN <= h->nlmsg_len) {
    const struct nlattr *a = (const void *)((const uint8_t *)h + off);
    if (a->nla_len < NLA_HDRLEN || off + a->nla_len > h->nlmsg_len) break;
    if ((a->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG && a->nla_len > NLA_HDRLEN) {
      const char *s = (const char *)a + NLA_HDRLEN;
      return memchr(s, '\0', a->nla_len - NLA_HDRLEN) != NULL ? s : NULL;
    }
    off += NLA_ALIGN(a->nla_len);
  }
  return NULL;
}

/**
 * Reads every queued answer for the batch [first, first + n): failures are recorded; returns whether the
 * last message's acknowledgement arrived and nothing was dropped. `seen` marks answered messages.
 */
static int drain(job_t *j, uint32_t first_seq, uint32_t n, uint32_t first_index, uint8_t *seen) {
  nl_t *nl = j->nl;
  int complete = 0, lost = 0;
  for (;;) {
    ssize_t r = recv(nl->fd, j->rbuf, RECV_BYTES, MSG_DONTWAIT);
    if (r < 0) {
      if (errno == EINTR) continue;
      if (errno == ENOBUFS) {  // answers were dropped; read what is left
        lost = 1;
        continue;
      }
      break;  // EAGAIN: everything queued has been read
    }
    int left = (int)r;
    for (struct nlmsghdr *h = (void *)j->rbuf; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
      uint32_t k = h->nlmsg_seq - first_seq;
      if (h->nlmsg_type != NLMSG_ERROR || k >= n) continue;  // not ours (an earlier write's straggler)
      const struct nlmsgerr *e = NLMSG_DATA(h);
      seen[k] = 1;
      if (e->error != 0) fail_text(j, first_index + k, -e->error, ext_text(h));
      if (k == n - 1) complete = 1;
    }
  }
  return complete && !lost;
}

static void execute(napi_env env, void *arg) {
  (void)env;
  job_t *j = arg;
  nl_t *nl = j->nl;
  struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
  uint8_t *seen = calloc(nl->max_msgs, 1);
  j->rbuf = malloc(RECV_BYTES);
  size_t pos = 0;
  uint32_t index = 0;
  while (pos < j->len && index < j->count) {
    // One sendmsg: as many whole messages as the send and receive buffers allow.
    size_t start = pos;
    uint32_t n = 0;
    struct nlmsghdr *last = NULL;
    while (pos < j->len && n < nl->max_msgs) {
      struct nlmsghdr *h = (void *)(j->data + pos);
      size_t mlen = j->len - pos >= NLMSG_HDRLEN ? NLMSG_ALIGN(h->nlmsg_len) : 0;
      if (mlen < NLMSG_HDRLEN || pos + mlen > j->len) {
        pos = j->len;  // malformed tail: the encoder's bug; everything from here fails
        break;
      }
      if (n > 0 && pos + mlen - start > nl->max_bytes) break;
      h->nlmsg_seq = ++nl->seq;
      h->nlmsg_pid = 0;
      h->nlmsg_flags &= ~NLM_F_ACK;
      last = h;
      pos += mlen;
      n++;
    }
    if (n == 0 || seen == NULL || j->rbuf == NULL) break;
    last->nlmsg_flags |= NLM_F_ACK;
    uint32_t first_seq = last->nlmsg_seq - (n - 1);
    struct iovec iov = {.iov_base = j->data + start, .iov_len = pos - start};
    struct msghdr msg = {.msg_name = &kernel, .msg_namelen = sizeof kernel, .msg_iov = &iov, .msg_iovlen = 1};
    ssize_t sent;
    do sent = sendmsg(nl->fd, &msg, 0);
    while (sent < 0 && errno == EINTR);
    j->sends++;
    if (sent < 0) {
      int err = errno;
      for (uint32_t k = 0; k < n; k++) fail_text(j, index + k, err, NULL);
    } else {
      memset(seen, 0, n);
      if (!drain(j, first_seq, n, index, seen)) {
        // Some answers were lost: a message without one may or may not have applied.
        for (uint32_t k = 0; k < n; k++)
          if (!seen[k]) fail_text(j, index + k, ENOBUFS, "netlink acknowledgements lost (ENOBUFS), outcome unknown");
      }
    }
    index += n;
  }
  // Messages never sent (malformed buffer, out of memory).
  for (; index < j->count; index++) fail_text(j, index, EINVAL, "not sent");
  free(seen);
  free(j->rbuf);
  j->rbuf = NULL;
}

static void close_fd(nl_t *nl) {
  if (nl->fd >= 0) close(nl->fd);
  nl->fd = -1;
}

static void complete(napi_env env, napi_status status, void *arg) {
  job_t *j = arg;
  nl_t *nl = j->nl;
  nl->busy = 0;
  if (nl->closed) close_fd(nl);
  napi_value cb, undef, argv[2], list;
  napi_get_reference_value(env, j->callback_ref, &cb);
  napi_get_undefined(env, &undef);
  if (status != napi_ok) {
    napi_value msg;
    napi_create_string_utf8(env, "netlink-route: the write was cancelled", NAPI_AUTO_LENGTH, &msg);
    napi_create_error(env, NULL, msg, &argv[0]);
    argv[1] = undef;
  } else {
    napi_get_null(env, &argv[0]);
    napi_create_object(env, &argv[1]);
    napi_create_array_with_length(env, j->nfail, &list);
    for (uint32_t i = 0; i < j->nfail; i++) {
      napi_value pair, idx, text;
      napi_create_array_with_length(env, 2, &pair);
      napi_create_uint32(env, j->failures[i].index, &idx);
      napi_create_string_utf8(env, j->failures[i].text, NAPI_AUTO_LENGTH, &text);
      napi_set_element(env, pair, 0, idx);
      napi_set_element(env, pair, 1, text);
      napi_set_element(env, list, i, pair);
    }
    napi_value sends;
    napi_create_uint32(env, j->sends, &sends);
    napi_set_named_property(env, argv[1], "failed", list);
    napi_set_named_property(env, argv[1], "sends", sends);
  }
  napi_delete_reference(env, j->buffer_ref);
  napi_delete_reference(env, j->handle_ref);
  napi_delete_reference(env, j->callback_ref);
  napi_delete_async_work(env, j->work);
  free(j->failures);
  free(j);
  napi_call_function(env, undef, cb, 2, argv, NULL);
}

#define CHECK(call)                                                      \
  do {                                                                   \
    if ((call) != napi_ok) {                                             \
      napi_throw_error(env, "ERR_NETLINK_ROUTE", "netlink-route: " #call); \
      return NULL;                                                       \
    }                                                                    \
  } while (0)

static napi_value throw_errno(napi_env env, const char *what, int err) {
  char msg[160], buf[96];
  snprintf(msg, sizeof msg, "netlink-route: %s: %s", what, strerror_r(err, buf, sizeof buf));
  napi_throw_error(env, "ERR_NETLINK_ROUTE", msg);
  return NULL;
}

static void handle_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  nl_t *nl = data;
  close_fd(nl);  // never busy here: a write in flight holds a reference to the handle
  free(nl);
}

/** Sets a buffer size, beyond the sysctl limit when allowed (CAP_NET_ADMIN); returns what the socket has. */
static int buffer_size(int fd, int force_opt, int opt, int bytes) {
  if (setsockopt(fd, SOL_SOCKET, force_opt, &bytes, sizeof bytes) != 0) setsockopt(fd, SOL_SOCKET, opt, &bytes, sizeof bytes);
  int have = 0;
  socklen_t len = sizeof have;
  getsockopt(fd, SOL_SOCKET, opt, &have, &len);
  return have;
}

/** open(rcvbuf, sndbuf) → { handle, rcvbuf, sndbuf, maxMessages }: a NETLINK_ROUTE socket in this namespace. */
static napi_value js_open(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  uint32_t rcvbuf, sndbuf;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 2 || napi_get_value_uint32(env, argv[0], &rcvbuf) != napi_ok || napi_get_value_uint32(env, argv[1], &sndbuf) != napi_ok) {
    napi_throw_type_error(env, NULL, "open(rcvbuf, sndbuf)");
    return NULL;
  }
  int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (fd < 0) return throw_errno(env, "socket(AF_NETLINK)", errno);
  int on = 1;
  setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &on, sizeof on);
  setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &on, sizeof on);
  int rb = buffer_size(fd, SO_RCVBUFFORCE, SO_RCVBUF, (int)rcvbuf);
  int sb = buffer_size(fd, SO_SNDBUFFORCE, SO_SNDBUF, (int)sndbuf);
  struct sockaddr_nl local = {.nl_family = AF_NETLINK};
  if (bind(fd, (struct sockaddr *)&local, sizeof local) != 0) {
    int err = errno;
    close(fd);
    return throw_errno(env, "bind", err);
  }
  nl_t *nl = calloc(1, sizeof *nl);
  nl->fd = fd;
  // The kernel refuses a request larger than sndbuf - 32; leave room for its own accounting.
  size_t room = sb > 4096 ? (size_t)sb - 4096 : 1024;
  nl->max_bytes = room < SEND_MAX_BYTES ? room : SEND_MAX_BYTES;
  nl->max_msgs = rb / ACK_COST > 0 ? (unsigned)(rb / ACK_COST) : 1;
  napi_value result, handle, v;
  CHECK(napi_create_object(env, &result));
  CHECK(napi_create_external(env, nl, handle_finalize, NULL, &handle));
  CHECK(napi_set_named_property(env, result, "handle", handle));
  CHECK(napi_create_uint32(env, (uint32_t)rb, &v));
  CHECK(napi_set_named_property(env, result, "rcvbuf", v));
  CHECK(napi_create_uint32(env, (uint32_t)sb, &v));
  CHECK(napi_set_named_property(env, result, "sndbuf", v));
  CHECK(napi_create_uint32(env, nl->max_msgs, &v));
  CHECK(napi_set_named_property(env, result, "maxMessages", v));
  return result;
}

static nl_t *get_handle(napi_env env, napi_value v) {
  void *p = NULL;
  if (napi_get_value_external(env, v, &p) != napi_ok) return NULL;
  return p;
}

/**
 * write(handle, buffer, count, callback(err, { failed: [index, text][], sends })): sends the `count`
 * messages in `buffer` (sequence numbers and NLM_F_ACK are set here); the buffer must not be touched until
 * the callback. One write per handle at a time.
 */
static napi_value js_write(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4], name;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  nl_t *nl = argc == 4 ? get_handle(env, argv[0]) : NULL;
  void *data;
  size_t len;
  uint32_t count;
  napi_valuetype cbtype;
  if (nl == NULL || napi_get_buffer_info(env, argv[1], &data, &len) != napi_ok || napi_get_value_uint32(env, argv[2], &count) != napi_ok ||
      napi_typeof(env, argv[3], &cbtype) != napi_ok || cbtype != napi_function) {
    napi_throw_type_error(env, NULL, "write(handle, buffer, count, callback)");
    return NULL;
  }
  if (nl->closed || nl->fd < 0) return throw_errno(env, "write", EBADF);
  if (nl->busy) return throw_errno(env, "write (one at a time)", EBUSY);
  job_t *j = calloc(1, sizeof *j);
  j->nl = nl;
  j->data = data;
  j->len = len;
  j->count = count;
  CHECK(napi_create_reference(env, argv[0], 1, &j->handle_ref));
  CHECK(napi_create_reference(env, argv[1], 1, &j->buffer_ref));
  CHECK(napi_create_reference(env, argv[3], 1, &j->callback_ref));
  CHECK(napi_create_string_utf8(env, "routerd-bgp netlink-route", NAPI_AUTO_LENGTH, &name));
  CHECK(napi_create_async_work(env, NULL, name, execute, complete, j, &j->work));
  CHECK(napi_queue_async_work(env, j->work));
  nl->busy = 1;
  return NULL;
}

/** close(handle): the socket closes now, or when the write in flight completes. */
static napi_value js_close(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  nl_t *nl = argc == 1 ? get_handle(env, argv[0]) : NULL;
  if (nl == NULL) {
    napi_throw_type_error(env, NULL, "close(handle)");
    return NULL;
  }
  nl->closed = 1;
  if (!nl->busy) close_fd(nl);
  return NULL;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"open", NULL, js_open, NULL, NULL, NULL, napi_default, NULL},
      {"write", NULL, js_write, NULL, NULL, NULL, napi_default, NULL},
      {"close", NULL, js_close, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  napi_value v;
  // Bumped when the JS ↔ C contract changes (src/fib/native.ts checks it).
  napi_create_uint32(env, 1, &v);
  napi_set_named_property(env, exports, "ABI", v);
  return exports;
}

NAPI_MODULE(netlink_route, init)
