/* Applications and the containers they hold (API version 2, <hyde/sched.h>
 * "container-holding mode"): the controller's side. A scheduler asks for a
 * container of some size on a host for an app; the host's resources are
 * reserved at once and the container runs after the cluster's response
 * time (the topology's container_delay); tasks of the app run in it while
 * their demands fit; the scheduler releases it. The controller checks
 * every promise, keeps a model of each container's use (for the
 * simulator) or asks the backend (cgroups in emulation), samples it at
 * every heartbeat period, and writes app/apps.csv and app/containers.csv.
 * Apps exist in every run (a job is its own app without app=); the
 * containers only when the scheduler has pick_task_in. */
#ifndef HYDE_CONTAINERS_H
#define HYDE_CONTAINERS_H

#include <stdbool.h>
#include <stdint.h>

#include <hyde/sched.h>

#include "core/topo.h"

struct ctl;

/* Apps from the workload, each job's app and its tasks' demands; the
 * containers' state if the scheduler holds containers. 0, or -EINVAL
 * with a message (a task that fits no host). */
int cont_init(struct ctl *c, char *errbuf);
void cont_free(struct ctl *c);
/* Does the scheduler hold containers (pick_task_in)? */
bool cont_mode(const struct ctl *c);

/* Hooks of the controller (ctl.c) */
void cont_job_arrived(struct ctl *c, const struct hyde_job *j);
void cont_job_done(struct ctl *c, const struct hyde_job *j);
/* The host's heartbeat (after the scheduler's heartbeat hook): its
 * containers with room are offered. */
void cont_heartbeat(struct ctl *c, unsigned host);
/* A task's work starts or ends (its cores are busy meanwhile). */
void cont_compute(struct ctl *c, const struct hyde_task *t, bool on);
/* A task is over (after the controller and the scheduler heard of it):
 * its container has room again and is offered. */
void cont_task_done(struct ctl *c, const struct hyde_task *t);
/* The monitor: every heartbeat period, before the scheduler's tick. */
void cont_tick(struct ctl *c);
/* The run is over: containers still held are released (recorded). */
void cont_run_end(struct ctl *c);
/* app/apps.csv and app/containers.csv */
int cont_report(struct ctl *c, char *errbuf);

/* For backends: the container a running task is in (its id) and the
 * backend's data for it, or -1. */
int32_t ctl_task_container(struct ctl *c, const struct hyde_task *t, void **bpriv);

/* The API (sched_api.c) */
const struct hyde_app *cont_app(const struct ctl *c, uint32_t idx);
size_t cont_n_apps(const struct ctl *c);
void cont_host_unreserved(const struct ctl *c, unsigned host, struct hyde_res *out);
int cont_request(struct ctl *c, uint32_t app, unsigned host, const struct hyde_res *size);
int cont_release(struct ctl *c, uint32_t id);
const struct hyde_container *cont_get(const struct ctl *c, uint32_t id);
const uint32_t *cont_app_list(const struct ctl *c, uint32_t app, size_t *n);
/* What the app's live containers hold in all (hyde_app_held). */
void cont_app_held(const struct ctl *c, uint32_t app, struct hyde_res *held);
uint64_t cont_changes(const struct ctl *c);
const uint32_t *cont_host_list(const struct ctl *c, unsigned host, size_t *n);
int cont_usage(const struct ctl *c, uint32_t id, struct hyde_res *util);

/* A container's response time (the topology's container_delay), drawn
 * with u uniform in [0, 1): exposed for the tests of Table I's fit. */
int64_t cont_delay_draw(const struct topo_delay *d, double u);

#endif
