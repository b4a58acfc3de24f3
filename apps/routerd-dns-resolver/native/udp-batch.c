// udp-batch: a listening UDP socket that receives with recvmmsg(2) and sends with sendmmsg(2), so the
// resolver pays Node's per-call cost once per batch of datagrams instead of once per datagram (Linux only).
//
// Design: a worker thread blocks in poll(2) on the socket (and an eventfd that wakes it for shutdown),
// then drains the socket with non-blocking recvmmsg into one of SLOTS receive slots: Buffers owned by JS,
// each holding BATCH fixed-size packet records (meta + payload, layout in src/server/native/layout.ts).
// A full slot goes to the main thread through a napi_threadsafe_function: one JS call per batch. The JS
// callback answers what it can at once and hands the answers back with one send() (sendmmsg) before it
// returns; then the slot is free again. When every slot is busy the worker waits (the kernel's receive
// buffer absorbs the burst), so memory stays bounded.
//
// Built by the repository's scripts/build-native.mjs with gcc against the node-api-headers package (no node-gyp):
//   gcc -O2 -shared -fPIC -I<node-api-headers>/include native/udp-batch.c -o dist/native/udp-batch.node -lpthread
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include <node_api.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

// Keep in step with src/server/native/layout.ts.
#define SLOTS 4
#define BATCH 32
#define PKT 4096
#define META 32
#define SLOT_BYTES (BATCH * META + BATCH * PKT)
#define SEND_MAX 64
#define REF_NONE 0xffff
#define FLAG_TRUNCATED 1
#define NO_SLOT 0xff

typedef struct {
  int fd;
  int wake_fd;
  pthread_t thread;
  int thread_started;
  int stop;     // set under mu; the worker exits
  int closed;   // close() ran (main thread only)
  int refs;     // the JS handle and the threadsafe function each hold one (main thread only)
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int busy[SLOTS];
  uint8_t *slot_data[SLOTS];
  napi_ref slot_refs[SLOTS];
  napi_threadsafe_function tsfn;
  napi_env env;
  // The worker's own recvmmsg arrays (never touched by the main thread).
  struct mmsghdr msgs[BATCH];
  struct iovec iov[BATCH];
  struct sockaddr_storage names[BATCH];
} handle_t;

static void handle_unref(handle_t *h) {
  if (--h->refs > 0) return;
  pthread_mutex_destroy(&h->mu);
  pthread_cond_destroy(&h->cv);
  free(h);
}

// ---- worker ----------------------------------------------------------------------------------------

static void post(handle_t *h, unsigned slot, unsigned count, unsigned err) {
  uintptr_t word = ((uintptr_t)err << 24) | ((uintptr_t)count << 8) | slot;
  if (napi_call_threadsafe_function(h->tsfn, (void *)word, napi_tsfn_nonblocking) != napi_ok && slot != NO_SLOT) {
    // The function is closing: nobody will hand the slot back.
    pthread_mutex_lock(&h->mu);
    h->busy[slot] = 0;
    pthread_mutex_unlock(&h->mu);
  }
}

/** A free slot, marked busy; -1 when stopping. */
static int take_slot(handle_t *h) {
  pthread_mutex_lock(&h->mu);
  for (;;) {
    if (h->stop) {
      pthread_mutex_unlock(&h->mu);
      return -1;
    }
    for (int i = 0; i < SLOTS; i++) {
      if (!h->busy[i]) {
        h->busy[i] = 1;
        pthread_mutex_unlock(&h->mu);
        return i;
      }
    }
    pthread_cond_wait(&h->cv, &h->mu);
  }
}

static void give_back(handle_t *h, int slot) {
  pthread_mutex_lock(&h->mu);
  h->busy[slot] = 0;
  pthread_cond_signal(&h->cv);
  pthread_mutex_unlock(&h->mu);
}

static int stopping(handle_t *h) {
  pthread_mutex_lock(&h->mu);
  int s = h->stop;
  pthread_mutex_unlock(&h->mu);
  return s;
}

static void write_meta(uint8_t *m, const struct mmsghdr *msg) {
  memset(m, 0, META);
  uint16_t len = (uint16_t)(msg->msg_len > PKT ? PKT : msg->msg_len);
  memcpy(m, &len, 2);
  const struct sockaddr *sa = msg->msg_hdr.msg_name;
  if (sa->sa_family == AF_INET) {
    const struct sockaddr_in *in = (const void *)sa;
    uint16_t port = ntohs(in->sin_port);
    memcpy(m + 2, &port, 2);
    m[4] = 4;
    memcpy(m + 12, &in->sin_addr, 4);
  } else if (sa->sa_family == AF_INET6) {
    const struct sockaddr_in6 *in6 = (const void *)sa;
    uint16_t port = ntohs(in6->sin6_port);
    memcpy(m + 2, &port, 2);
    m[4] = 6;
    uint32_t scope = in6->sin6_scope_id;
    memcpy(m + 8, &scope, 4);
    memcpy(m + 12, &in6->sin6_addr, 16);
  }
  if (msg->msg_hdr.msg_flags & MSG_TRUNC) m[5] |= FLAG_TRUNCATED;
}

static void *worker(void *arg) {
  handle_t *h = arg;
  struct pollfd fds[2] = {{.fd = h->fd, .events = POLLIN}, {.fd = h->wake_fd, .events = POLLIN}};
  for (;;) {
    int slot = take_slot(h);
    if (slot < 0) break;
    uint8_t *base = h->slot_data[slot];
    int n;
    for (;;) {
      if (stopping(h)) {
        give_back(h, slot);
        goto out;
      }
      for (int i = 0; i < BATCH; i++) {
        h->iov[i].iov_base = base + BATCH * META + i * PKT;
        h->iov[i].iov_len = PKT;
        memset(&h->msgs[i].msg_hdr, 0, sizeof h->msgs[i].msg_hdr);
        h->msgs[i].msg_hdr.msg_name = &h->names[i];
        h->msgs[i].msg_hdr.msg_namelen = sizeof h->names[i];
        h->msgs[i].msg_hdr.msg_iov = &h->iov[i];
        h->msgs[i].msg_hdr.msg_iovlen = 1;
      }
      n = recvmmsg(h->fd, h->msgs, BATCH, MSG_DONTWAIT, NULL);
      if (n > 0) break;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        poll(fds, 2, -1);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      // Anything else (ENOMEM, an ICMP error queued on the socket): report it and keep serving, gently.
      post(h, NO_SLOT, 0, n < 0 ? (unsigned)errno : 0);
      usleep(10000);
    }
    for (int i = 0; i < n; i++) write_meta(base + i * META, &h->msgs[i]);
    post(h, (unsigned)slot, (unsigned)n, 0);
  }
out:
  return NULL;
}

// ---- main thread -----------------------------------------------------------------------------------

/** Runs on the main thread for each posted batch: onBatch(slot, count, errno), then the slot is free. */
static void call_js(napi_env env, napi_value fn, void *context, void *data) {
  handle_t *h = context;
  uintptr_t word = (uintptr_t)data;
  unsigned slot = word & 0xff, count = (word >> 8) & 0xffff, err = (unsigned)(word >> 24);
  if (env != NULL && fn != NULL && !h->closed) {
    napi_value argv[3], undef;
    napi_create_uint32(env, slot, &argv[0]);
    napi_create_uint32(env, count, &argv[1]);
    napi_create_uint32(env, err, &argv[2]);
    napi_get_undefined(env, &undef);
    // The JS side catches its own errors; an exception here would only be reported by Node.
    napi_call_function(env, undef, fn, 3, argv, NULL);
  }
  if (slot != NO_SLOT) give_back(h, (int)slot);
}

static void stop_worker(handle_t *h) {
  pthread_mutex_lock(&h->mu);
  h->stop = 1;
  pthread_cond_broadcast(&h->cv);
  pthread_mutex_unlock(&h->mu);
  uint64_t one = 1;
  if (write(h->wake_fd, &one, sizeof one) < 0) { /* the eventfd cannot be full here */ }
  if (h->thread_started) pthread_join(h->thread, NULL);
  h->thread_started = 0;
}

/** Stops the worker, closes the socket, lets the threadsafe function go. Idempotent. */
static void shut(handle_t *h, int delete_refs) {
  if (h->closed) return;
  h->closed = 1;
  stop_worker(h);
  close(h->fd);
  close(h->wake_fd);
  napi_release_threadsafe_function(h->tsfn, napi_tsfn_abort);
  if (delete_refs) {
    for (int i = 0; i < SLOTS; i++) napi_delete_reference(h->env, h->slot_refs[i]);
  }
}

static void env_cleanup(void *arg) {
  handle_t *h = arg;
  // The environment is going away: only make sure no thread outlives it.
  if (!h->closed) {
    h->closed = 1;
    stop_worker(h);
    close(h->fd);
    close(h->wake_fd);
  }
}

static void tsfn_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  handle_unref(data);
}

static void handle_finalize(napi_env env, void *data, void *hint) {
  (void)hint;
  handle_t *h = data;
  if (!h->closed) {
    napi_remove_env_cleanup_hook(env, env_cleanup, h);
    shut(h, 1);
  }
  handle_unref(h);
}

#define CHECK(call)                                                   \
  do {                                                                \
    if ((call) != napi_ok) {                                          \
      napi_throw_error(env, "ERR_UDP_BATCH", "udp-batch: " #call); \
      return NULL;                                                    \
    }                                                                 \
  } while (0)

static napi_value throw_errno(napi_env env, const char *what, int err, const char *address, unsigned port) {
  char msg[200];
  char code[24];
  const char *name = NULL;
  switch (err) {
    case EADDRINUSE: name = "EADDRINUSE"; break;
    case EADDRNOTAVAIL: name = "EADDRNOTAVAIL"; break;
    case EACCES: name = "EACCES"; break;
    case EINVAL: name = "EINVAL"; break;
    case EAFNOSUPPORT: name = "EAFNOSUPPORT"; break;
    case ENODEV: name = "ENODEV"; break;
    default: snprintf(code, sizeof code, "E%d", err); name = code;
  }
  snprintf(msg, sizeof msg, "%s %s %s:%u (%s)", what, name, address, port, strerror(err));
  napi_throw_error(env, name, msg);
  return NULL;
}

/**
 * open(address, port, rcvbuf, sndbuf, onBatch) → { handle, slots: Buffer[SLOTS], port }
 * address is numeric (IPv4 or IPv6, "fe80::1%eth0" allowed); an IPv6 socket is IPv6-only.
 */
static napi_value js_open(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 5) {
    napi_throw_type_error(env, NULL, "open(address, port, rcvbuf, sndbuf, onBatch)");
    return NULL;
  }
  char address[INET6_ADDRSTRLEN + IF_NAMESIZE + 2];
  size_t alen;
  uint32_t port, rcvbuf, sndbuf;
  CHECK(napi_get_value_string_utf8(env, argv[0], address, sizeof address, &alen));
  CHECK(napi_get_value_uint32(env, argv[1], &port));
  CHECK(napi_get_value_uint32(env, argv[2], &rcvbuf));
  CHECK(napi_get_value_uint32(env, argv[3], &sndbuf));

  struct addrinfo hints = {.ai_flags = AI_NUMERICHOST, .ai_socktype = SOCK_DGRAM}, *ai = NULL;
  if (getaddrinfo(address, NULL, &hints, &ai) != 0 || ai == NULL) return throw_errno(env, "bind", EINVAL, address, port);
  struct sockaddr_storage ss;
  socklen_t sslen = ai->ai_addrlen;
  memcpy(&ss, ai->ai_addr, sslen);
  int family = ai->ai_family;
  freeaddrinfo(ai);
  if (family == AF_INET) ((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)port);
  else ((struct sockaddr_in6 *)&ss)->sin6_port = htons((uint16_t)port);

  int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return throw_errno(env, "socket", errno, address, port);
  // No SO_REUSEADDR: for UDP it would let a second process bind the same address and port and take half of
  // the queries; a UDP socket leaves no TIME_WAIT behind to wait for.
  int on = 1;
  if (family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on);
  int rb = (int)rcvbuf, sb = (int)sndbuf;
  if (rb > 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rb, sizeof rb);
  if (sb > 0) setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sb, sizeof sb);
  if (bind(fd, (struct sockaddr *)&ss, sslen) != 0) {
    int err = errno;
    close(fd);
    return throw_errno(env, "bind", err, address, port);
  }
  struct sockaddr_storage bound;
  socklen_t blen = sizeof bound;
  getsockname(fd, (struct sockaddr *)&bound, &blen);
  unsigned bound_port = ntohs(family == AF_INET ? ((struct sockaddr_in *)&bound)->sin_port : ((struct sockaddr_in6 *)&bound)->sin6_port);
  int wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd < 0) {
    int err = errno;
    close(fd);
    return throw_errno(env, "eventfd", err, address, port);
  }

  handle_t *h = calloc(1, sizeof *h);
  h->fd = fd;
  h->wake_fd = wake_fd;
  h->env = env;
  h->refs = 2;
  pthread_mutex_init(&h->mu, NULL);
  pthread_cond_init(&h->cv, NULL);

  napi_value result, slots, handle, port_value, name;
  CHECK(napi_create_object(env, &result));
  CHECK(napi_create_array_with_length(env, SLOTS, &slots));
  for (int i = 0; i < SLOTS; i++) {
    napi_value buf;
    void *data;
    CHECK(napi_create_buffer(env, SLOT_BYTES, &data, &buf));
    memset(data, 0, BATCH * META);
    h->slot_data[i] = data;
    CHECK(napi_create_reference(env, buf, 1, &h->slot_refs[i]));
    CHECK(napi_set_element(env, slots, (uint32_t)i, buf));
  }
  CHECK(napi_create_string_utf8(env, "routerd-dns-resolver udp-batch", NAPI_AUTO_LENGTH, &name));
  CHECK(napi_create_threadsafe_function(env, argv[4], NULL, name, 0, 1, h, tsfn_finalize, h, call_js, &h->tsfn));
  CHECK(napi_create_external(env, h, handle_finalize, NULL, &handle));
  CHECK(napi_create_uint32(env, bound_port, &port_value));
  CHECK(napi_set_named_property(env, result, "handle", handle));
  CHECK(napi_set_named_property(env, result, "slots", slots));
  CHECK(napi_set_named_property(env, result, "port", port_value));
  napi_add_env_cleanup_hook(env, env_cleanup, h);
  int rc = pthread_create(&h->thread, NULL, worker, h);
  if (rc != 0) {
    napi_remove_env_cleanup_hook(env, env_cleanup, h);
    shut(h, 1);
    return throw_errno(env, "pthread_create", rc, address, port);
  }
  h->thread_started = 1;
  // Seen in top -H and /proc/PID/task/*/comm (bench/dns tells the native path by it).
  pthread_setname_np(h->thread, "dns-udp-recv");
  return result;
}

static handle_t *get_handle(napi_env env, napi_value v) {
  void *p = NULL;
  if (napi_get_value_external(env, v, &p) != napi_ok) return NULL;
  return p;
}

static socklen_t peer_address(const uint8_t *m, struct sockaddr_storage *ss) {
  uint16_t port;
  memcpy(&port, m + 2, 2);
  memset(ss, 0, sizeof *ss);
  if (m[4] == 4) {
    struct sockaddr_in *in = (void *)ss;
    in->sin_family = AF_INET;
    in->sin_port = htons(port);
    memcpy(&in->sin_addr, m + 12, 4);
    return sizeof *in;
  }
  struct sockaddr_in6 *in6 = (void *)ss;
  in6->sin6_family = AF_INET6;
  in6->sin6_port = htons(port);
  memcpy(&in6->sin6_scope_id, m + 8, 4);
  memcpy(&in6->sin6_addr, m + 12, 16);
  return sizeof *in6;
}

/**
 * send(handle, staging, count, slot) → sent + (lastErrno << 16)
 * staging holds `count` send records (META bytes each; layout.ts) and their payloads; a record whose ref is
 * not REF_NONE goes to the source of packet `ref` of receive slot `slot` (the batch being answered).
 * Datagrams the kernel refuses (a full send buffer, an unreachable address) are skipped and counted out.
 */
static napi_value js_send(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4], result;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  handle_t *h = get_handle(env, argv[0]);
  uint8_t *staging;
  size_t staging_len;
  uint32_t count, slot;
  if (h == NULL || napi_get_buffer_info(env, argv[1], (void **)&staging, &staging_len) != napi_ok) {
    napi_throw_type_error(env, NULL, "send(handle, staging, count, slot)");
    return NULL;
  }
  CHECK(napi_get_value_uint32(env, argv[2], &count));
  CHECK(napi_get_value_uint32(env, argv[3], &slot));
  if (h->closed) {
    CHECK(napi_create_uint32(env, (uint32_t)EBADF << 16, &result));
    return result;
  }
  if (count > SEND_MAX) count = SEND_MAX;
  struct mmsghdr msgs[SEND_MAX];
  struct iovec iov[SEND_MAX];
  struct sockaddr_storage names[SEND_MAX];
  unsigned valid = 0;
  for (uint32_t i = 0; i < count; i++) {
    const uint8_t *rec = staging + (size_t)i * META;
    uint16_t len, ref;
    uint32_t off;
    memcpy(&len, rec, 2);
    memcpy(&ref, rec + 6, 2);
    memcpy(&off, rec + 28, 4);
    if ((size_t)off + len > staging_len) continue;
    const uint8_t *peer = rec;
    if (ref != REF_NONE) {
      if (slot >= SLOTS || ref >= BATCH) continue;
      peer = h->slot_data[slot] + (size_t)ref * META;
    }
    if (peer[4] != 4 && peer[4] != 6) continue;
    memset(&msgs[valid], 0, sizeof msgs[valid]);
    msgs[valid].msg_hdr.msg_namelen = peer_address(peer, &names[valid]);
    msgs[valid].msg_hdr.msg_name = &names[valid];
    iov[valid].iov_base = staging + off;
    iov[valid].iov_len = len;
    msgs[valid].msg_hdr.msg_iov = &iov[valid];
    msgs[valid].msg_hdr.msg_iovlen = 1;
    valid++;
  }
  unsigned sent = 0, done = 0, last_err = 0;
  while (done < valid) {
    int n = sendmmsg(h->fd, msgs + done, valid - done, MSG_DONTWAIT);
    if (n > 0) {
      sent += (unsigned)n;
      done += (unsigned)n;
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      // This datagram failed (sendmmsg reports an error only for the first one): skip it.
      last_err = n < 0 ? (unsigned)errno : EIO;
      done++;
    }
  }
  CHECK(napi_create_uint32(env, sent | (last_err << 16), &result));
  return result;
}

/** close(handle): the worker has ended and the socket is closed when this returns. */
static napi_value js_close(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  handle_t *h = argc > 0 ? get_handle(env, argv[0]) : NULL;
  if (h == NULL) {
    napi_throw_type_error(env, NULL, "close(handle)");
    return NULL;
  }
  if (!h->closed) {
    napi_remove_env_cleanup_hook(env, env_cleanup, h);
    shut(h, 1);
  }
  return NULL;
}

/**
 * trim() → whether memory went back to the kernel: glibc's malloc_trim(0) returns the free pages of every
 * malloc arena (also those in the middle of the heap, which free() alone keeps: a burst of misses leaves
 * Node's C heap fragmented at its peak size). Called after the memory settle's full collection.
 */
static napi_value js_trim(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
  napi_get_boolean(env, malloc_trim(0) != 0, &result);
  return result;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"trim", NULL, js_trim, NULL, NULL, NULL, napi_default, NULL},
      {"open", NULL, js_open, NULL, NULL, NULL, napi_default, NULL},
      {"send", NULL, js_send, NULL, NULL, NULL, napi_default, NULL},
      {"close", NULL, js_close, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_value v;
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  napi_create_uint32(env, SLOTS, &v);
  napi_set_named_property(env, exports, "SLOTS", v);
  napi_create_uint32(env, BATCH, &v);
  napi_set_named_property(env, exports, "BATCH", v);
  napi_create_uint32(env, PKT, &v);
  napi_set_named_property(env, exports, "PKT", v);
  napi_create_uint32(env, META, &v);
  napi_set_named_property(env, exports, "META", v);
  napi_create_uint32(env, SEND_MAX, &v);
  napi_set_named_property(env, exports, "SEND_MAX", v);
  return exports;
}

NAPI_MODULE(udp_batch, init)
