#include "remote/clone.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "odb/link_check.h"
#include "refs/refdb.h"
#include "refs/refname.h"
#include "remote/dumb_fetch.h"
#include "remote/operation_internal.h"
#include "remote/pack_receiver.h"
#include "repo/repo.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/date.h"
#include "util/fs.h"
#include "util/url.h"

enum clone_state {
	CLONE_DISCOVERY = 0,
	CLONE_NEED_FETCH,
	CLONE_FETCHING,
	CLONE_DUMB,                   /* walking a static host */
	CLONE_DONE,
};

struct clone {
	struct wg_remote_op base;
	struct wg_clone_options opts;
	char *url, *path, *branch, *filter, *ref_format, *revision;
	char **config;                /* the caller's -c settings, copied */
	enum clone_state state;
	struct wg_discovery d;
	bool created;                 /* we wrote into `path` in place: undo unless complete */
	bool existed;                 /* `path` was an empty directory: keep it so */
	bool empty;
	struct wg_repo *repo;
	const struct wg_remote_ref *head;    /* the remote's HEAD, if any */
	char *head_branch;                   /* "refs/heads/<b>" HEAD will name, or
					      * "refs/tags/<t>" (-b <tag>: HEAD is
					      * detached at what the tag names) */
	bool head_is_tag;
	struct wg_oid revision_oid;          /* --revision's commit, once parsed */
	struct wg_oid *wants;
	size_t nwants;
	struct wg_pack_receiver rcv;
	struct wg_dumb_fetch *dumb;   /* a static host's walker */
	struct wg_link_check links;   /* the connectivity check, as objects arrive */
	struct wg_oid *shallows;
	size_t nshallows, shallow_alloc;
	char since[32];               /* deepen-since as seconds */
	/* the ls-refs ref-prefix values (clone_prefixes) */
	char *prefixes[3 + WG_REF_DWIM_RULES];
	size_t nprefixes;
};

#define CL(op) ((struct clone *)(op))

static int nomem(void)
{
	return wg_error_set(WG_ENOMEM, "out of memory");
}

/* --- choosing what to fetch ----------------------------------------------------------- */

/* Does the clone take this remote ref? */
static bool wanted_ref(const struct clone *c, const struct wg_remote_ref *r)
{
	if (c->revision || r->unborn || !strcmp(r->name, "HEAD"))
		return false;
	if (c->opts.mirror)
		return !strncmp(r->name, "refs/", 5);
	if (c->opts.single_branch)
		return c->head_branch && !strcmp(r->name, c->head_branch);
	return !strncmp(r->name, "refs/heads/", 11) || !strncmp(r->name, "refs/tags/", 10);
}

static int cmp_oid(const void *a, const void *b)
{
	return memcmp(((const struct wg_oid *)a)->hash, ((const struct wg_oid *)b)->hash,
		      sizeof(((const struct wg_oid *)a)->hash));
}

static int choose_wants(struct clone *c)
{
	const struct wg_remote_ref_list *refs = c->d.refs;
	size_t n = 0;

	if (c->revision) {
		if (!(c->wants = wg_calloc(1, sizeof(*c->wants))))
			return nomem();
		c->wants[0] = c->revision_oid;
		c->nwants = 1;
		return wg_discovery_check_wants(&c->d, c->wants, 1);
	}
	if (!(c->wants = wg_calloc(refs->nr ? refs->nr : 1, sizeof(*c->wants))))
		return nomem();
	for (size_t i = 0; i < refs->nr; i++)
		if (wanted_ref(c, &refs->refs[i]))
			c->wants[n++] = refs->refs[i].oid;
	qsort(c->wants, n, sizeof(*c->wants), cmp_oid);
	c->nwants = 0;
	for (size_t i = 0; i < n; i++)
		if (!c->nwants || !wg_oid_equal(&c->wants[c->nwants - 1], &c->wants[i]))
			c->wants[c->nwants++] = c->wants[i];
	return 0;
}

/* Which branch HEAD will name: -b, else the remote HEAD's target, else
 * (a remote without HEAD) main. */
static int choose_head(struct clone *c)
{
	const struct wg_remote_ref_list *refs = c->d.refs;
	const char *target = NULL;
	struct wg_buf b = WG_BUF_INIT;

	c->head = wg_remote_ref_list_find(refs, "HEAD");
	if (c->revision) {
		/* HEAD is detached at it in the end; init's branch is a name */
		if (wg_oid_from_hex_str(&c->revision_oid, c->d.algo, c->revision))
			return wg_error_set(WG_EINVALID, "--revision takes a full %s object id, "
					    "not '%s'", c->d.algo->name, c->revision);
		c->head_branch = wg_strdup("refs/heads/main");
		return c->head_branch ? 0 : nomem();
	}
	if (c->opts.branch) {
		if (wg_buf_printf(&b, "refs/heads/%s", c->opts.branch))
			return nomem();
		if (!wg_remote_ref_list_find(refs, wg_buf_cstr(&b)) && refs->nr) {
			/* git clone -b also takes a tag */
			wg_buf_reset(&b);
			if (wg_buf_printf(&b, "refs/tags/%s", c->opts.branch))
				return nomem();
			c->head_is_tag = wg_remote_ref_list_find(refs, wg_buf_cstr(&b)) != NULL;
			if (!c->head_is_tag) {
				wg_buf_reset(&b);
				if (wg_buf_printf(&b, "refs/heads/%s", c->opts.branch))
					return nomem();
			}
		}
		if (!wg_remote_ref_list_find(refs, wg_buf_cstr(&b)) && refs->nr &&
		    !(c->head && c->head->unborn)) {
			wg_buf_release(&b);
			return wg_error_set(WG_ENOTFOUND, "Remote branch %s not found in upstream "
					    "origin", c->opts.branch);
		}
		c->head_branch = (char *)wg_buf_detach(&b, NULL);
		return c->head_branch ? 0 : nomem();
	}
	if (c->head && c->head->symref_target &&
	    !strncmp(c->head->symref_target, "refs/heads/", 11))
		target = c->head->symref_target;
	if (!target) {
		/* An old server without symref info: the branch HEAD points at. */
		for (size_t i = 0; c->head && i < refs->nr && !target; i++)
			if (!strncmp(refs->refs[i].name, "refs/heads/", 11) &&
			    wg_oid_equal(&refs->refs[i].oid, &c->head->oid))
				target = refs->refs[i].name;
	}
	c->head_branch = wg_strdup(target ? target : "refs/heads/main");
	return c->head_branch ? 0 : nomem();
}

/* --- the repository ------------------------------------------------------------------- */

/* clone -c key=value: into the new repository's config (written to disk
 * with the rest by write_config()). */
static int apply_config(struct clone *c)
{
	struct wg_config *cfg = wg_repo_config(c->repo);
	struct wg_buf key = WG_BUF_INIT;
	size_t i;
	int err = 0;

	for (i = 0; i < c->opts.nconfig && !err; i++) {
		const char *kv = c->config[i], *eq = strchr(kv, '=');
		wg_buf_reset(&key);
		if ((err = wg_buf_add(&key, kv, eq ? (size_t)(eq - kv) : strlen(kv))))
			break;
		err = wg_config_add(cfg, wg_buf_cstr(&key), eq ? eq + 1 : "true");
	}
	wg_buf_release(&key);
	return err;
}

static int create_repo(struct clone *c)
{
	struct wg_repo_init_options io = WG_REPO_INIT_OPTIONS_INIT;
	int err;

	io.bare = c->opts.bare || c->opts.mirror;
	io.object_format = c->d.algo->name;
	io.ref_format = c->ref_format;
	/* A clone of a tag detaches HEAD at the end; until then it is unborn. */
	io.initial_branch = c->head_is_tag ? "main" : c->head_branch + 11;
	/* The clone is built aside and published when complete, so a killed
	 * process leaves no repository at `path` (repo/repo.h). Only a bare
	 * clone into an existing empty directory is made in place, and taken
	 * back on failure. */
	io.staged = true;
	c->existed = wg_fs_exists(c->path);
	c->created = true;   /* from here on a failure undoes what init made */
	err = wg_repo_init(&c->repo, c->path, &io);
	if (!err)
		c->created = !wg_repo_unpublished(c->repo);
	return err ? err : apply_config(c);
}

static int write_config(struct clone *c)
{
	struct wg_config *cfg = wg_repo_config(c->repo);
	struct wg_buf path = WG_BUF_INIT, v = WG_BUF_INIT;
	const char *b = c->head_branch + 11;
	int err;

	if ((err = wg_config_set_string(cfg, "remote.origin.url", c->url)))
		goto done;
	if (c->revision) {
		/* git 2.53: the URL and nothing else */
	} else if (c->opts.mirror) {
		/* git 2.53 writes tagOpt first: a mirror's refspec takes the
		 * tags already, so none are followed. */
		if ((err = wg_config_set_string(cfg, "remote.origin.tagOpt", "--no-tags")) ||
		    (err = wg_config_set_string(cfg, "remote.origin.fetch", "+refs/*:refs/*")) ||
		    (err = wg_config_set_string(cfg, "remote.origin.mirror", "true")))
			goto done;
	} else if (!c->opts.bare) {
		if (c->opts.single_branch && c->head_is_tag)
			err = wg_buf_printf(&v, "+%s:%s", c->head_branch, c->head_branch);
		else if (c->opts.single_branch)
			err = wg_buf_printf(&v, "+refs/heads/%s:refs/remotes/origin/%s", b, b);
		else
			err = wg_buf_adds(&v, "+refs/heads/*:refs/remotes/origin/*");
		if (err || (err = wg_config_set_string(cfg, "remote.origin.fetch", wg_buf_cstr(&v))))
			goto done;
		if (!c->empty && !c->head_is_tag) {
			wg_buf_reset(&v);
			if ((err = wg_buf_printf(&v, "branch.%s.remote", b)) ||
			    (err = wg_config_set_string(cfg, wg_buf_cstr(&v), "origin")))
				goto done;
			wg_buf_reset(&v);
			if ((err = wg_buf_printf(&v, "branch.%s.merge", b)) ||
			    (err = wg_config_set_string(cfg, wg_buf_cstr(&v), c->head_branch)))
				goto done;
		}
	}
	if (c->filter &&
	    ((err = wg_config_set_string(cfg, "core.repositoryformatversion", "1")) ||
	     (err = wg_config_set_string(cfg, "remote.origin.promisor", "true")) ||
	     (err = wg_config_set_string(cfg, "remote.origin.partialclonefilter", c->filter)) ||
	     (err = wg_config_set_string(cfg, "extensions.partialclone", "origin"))))
		goto done;
	if (!(err = wg_fs_join(&path, wg_repo_gitdir(c->repo), "config")))
		err = wg_config_write_file(cfg, wg_buf_cstr(&path));
done:
	wg_buf_release(&path);
	wg_buf_release(&v);
	return err == WG_ENOMEM ? nomem() : err;
}

/* The local name of a remote ref, or NULL to skip it. */
static int local_name(const struct clone *c, const struct wg_remote_ref *r, struct wg_buf *out)
{
	wg_buf_reset(out);
	if (!wanted_ref(c, r))
		return 0;
	if (c->opts.mirror || c->opts.bare || !strncmp(r->name, "refs/tags/", 10))
		return wg_buf_adds(out, r->name) ? nomem() : 0;
	return wg_buf_printf(out, "refs/remotes/origin/%s", r->name + 11) ? nomem() : 0;
}

static bool follows_tag(struct clone *c, const struct wg_remote_ref *r)
{
	return !c->opts.mirror && strncmp(r->name, "refs/tags/", 10) == 0 && !r->unborn &&
	       wg_odb_exists(wg_repo_odb(c->repo), &r->oid) > 0;
}

static int write_refs(struct clone *c)
{
	struct wg_refdb *db = wg_repo_refdb(c->repo);
	struct wg_ref_transaction *tx = NULL;
	struct wg_buf name = WG_BUF_INIT, msg = WG_BUF_INIT;
	const struct wg_remote_ref_list *refs = c->d.refs;
	const struct wg_remote_ref *head_ref = wg_remote_ref_list_find(refs, c->head_branch);
	const struct wg_remote_ref *remote_head;
	int err;

	if ((err = wg_buf_printf(&msg, "clone: from %s", c->url)) ||
	    (err = wg_ref_transaction_new(&tx, db)))
		goto done;
	for (size_t i = 0; i < refs->nr; i++) {
		if ((err = local_name(c, &refs->refs[i], &name)))
			goto done;
		/* Tag following (a single-branch or shallow clone wants only its
		 * branch): a tag whose object arrived anyway (include-tag, or
		 * one naming a tree or blob of the branch) is kept, as git does. */
		if (!name.len && follows_tag(c, &refs->refs[i]) &&
		    (err = wg_buf_adds(&name, refs->refs[i].name) ? nomem() : 0))
			goto done;
		/* git logs only the branch and HEAD of a new clone */
		if (name.len && (err = wg_ref_transaction_create(tx, wg_buf_cstr(&name),
								 &refs->refs[i].oid,
								 WG_REF_SKIP_REFLOG,
								 wg_buf_cstr(&msg))))
			goto done;
	}
	/* The local branch a non-bare clone starts on. */
	if (!c->head_is_tag && !c->opts.bare && !c->opts.mirror && head_ref &&
	    !head_ref->unborn &&
	    (err = wg_ref_transaction_create(tx, c->head_branch, &head_ref->oid, 0,
					     wg_buf_cstr(&msg))))
		goto done;
	if ((err = wg_ref_transaction_commit(tx)))
		goto done;
	wg_ref_transaction_free(tx);
	tx = NULL;
	if (c->revision &&
	    (err = wg_refdb_update(db, "HEAD", &c->revision_oid, NULL, WG_REF_NO_DEREF,
				   wg_buf_cstr(&msg))))
		goto done;
	/* For a tag, HEAD detached at the commit it names, as git does (on
	 * its own: in a bare clone HEAD's old referent is among the refs). */
	if (c->head_is_tag && head_ref &&
	    (err = wg_refdb_update(db, "HEAD", head_ref->has_peeled ? &head_ref->peeled :
				   &head_ref->oid, NULL, WG_REF_NO_DEREF, wg_buf_cstr(&msg))))
		goto done;
	/* HEAD was made by init; origin/HEAD names the remote-tracking ref of
	 * the remote's HEAD, when the clone took that branch (git: not after
	 * -b <other> --single-branch, whatever -b says otherwise). */
	if (!c->opts.bare && !c->opts.mirror && c->head && c->head->symref_target &&
	    !c->head->unborn && !strncmp(c->head->symref_target, "refs/heads/", 11) &&
	    (remote_head = wg_remote_ref_list_find(refs, c->head->symref_target)) &&
	    wanted_ref(c, remote_head)) {
		wg_buf_reset(&name);
		if ((err = wg_buf_printf(&name, "refs/remotes/origin/%s",
					 c->head->symref_target + 11)) ||
		    (err = wg_refdb_symref_update(db, "refs/remotes/origin/HEAD",
						  wg_buf_cstr(&name), wg_buf_cstr(&msg))))
			goto done;
	}
done:
	wg_ref_transaction_free(tx);
	wg_buf_release(&name);
	wg_buf_release(&msg);
	return err;
}

static int write_shallow(struct clone *c)
{
	struct wg_buf path = WG_BUF_INIT, data = WG_BUF_INIT;
	char hex[WG_MAX_HEXSZ + 1];
	int err = 0;

	if (!c->nshallows)
		return 0;
	qsort(c->shallows, c->nshallows, sizeof(*c->shallows), cmp_oid);
	for (size_t i = 0; i < c->nshallows && !err; i++)
		if (!i || !wg_oid_equal(&c->shallows[i - 1], &c->shallows[i]))
			err = wg_buf_printf(&data, "%s\n", wg_oid_to_hex(&c->shallows[i], hex));
	if (!err && !(err = wg_fs_join(&path, wg_repo_gitdir(c->repo), "shallow")))
		err = wg_fs_write_new_file(wg_buf_cstr(&path), data.data, data.len, 0666);
	wg_buf_release(&path);
	wg_buf_release(&data);
	return err;
}

/* Every wanted object must now be here: a server that sends a pack
 * without them would otherwise leave refs to nothing. */
static int check_wants(struct clone *c)
{
	char hex[WG_MAX_HEXSZ + 1];

	for (size_t i = 0; i < c->nwants; i++)
		if (wg_odb_exists(wg_repo_odb(c->repo), &c->wants[i]) <= 0)
			return wg_error_set(WG_ECORRUPT, "the server did not send %s, which it "
					    "advertised", wg_oid_to_hex(&c->wants[i], hex));
	return 0;
}

/* Everything the refs will name must be here (git's connectivity check):
 * the pack receiver checked, as the objects were indexed, that everything
 * they name arrived (but the parents of shallow commits, and in a partial
 * clone trees and blobs), so a server that sends a partial pack, or
 * shallow lines that do not match where the history it sent ends, is
 * refused; here the wanted tips themselves must be in it. Shallow lines are
 * kept as the server sent them, as git keeps them (with deepen-not a
 * server may name a boundary it did not send). */
static int complete(struct clone *c)
{
	int err;

	if ((err = check_wants(c)) || (err = write_shallow(c)) || (err = write_refs(c)) ||
	    (err = write_config(c)))
		return err;
	/* the last step: publishing reopens the repository at its path */
	if (!c->opts.defer_publish) {
		err = wg_repo_publish(&c->repo);
		c->rcv.repo = c->repo;
		if (err)
			return err;
	}
	c->state = CLONE_DONE;
	return 0;
}

/* --- the fetch ---------------------------------------------------------------------- */

/* What a clone decides itself; acknowledgments and wanted-refs need
 * nothing from a clone that sent "done". */
static int add_shallow(struct clone *c, const struct wg_oid *oid);

static int clone_event(const struct wg_fetch_event *ev, void *payload)
{
	struct clone *c = payload;

	switch (ev->kind) {
	case WG_FETCH_EV_SHALLOW:
		if (!c->opts.depth && !c->opts.shallow_since && !c->opts.nshallow_exclude)
			return wg_error_set(WG_ECORRUPT, "the server sent a shallow line for a "
					    "clone that asked for no depth");
		return add_shallow(c, &ev->oid);
	case WG_FETCH_EV_UNSHALLOW:
		return wg_error_set(WG_ECORRUPT, "the server sent an unshallow line to a new "
				    "clone");
	default:
		return 0;
	}
}

static int fetch_request(struct clone *c)
{
	struct wg_fetch_args args = WG_FETCH_ARGS_INIT;
	int err;

	args.algo = c->d.algo;
	args.wants = c->wants;
	args.nwants = c->nwants;
	args.done = true;
	/* git asks for a thin pack even here, and some servers (Dulwich)
	 * refuse a request without it. With no "have" a server has nothing
	 * to leave out, so the pack is still complete: a delta against a
	 * base it did not send stays an error (no fix_thin below). */
	args.thin_pack = true;
	args.ofs_delta = true;
	/* as git: a clone of every branch wants every tag anyway; one of a
	 * single branch follows the tags into its history */
	args.include_tag = c->opts.single_branch && !c->opts.mirror;
	args.no_progress = !c->base.progress || c->base.quiet;
	args.depth = c->opts.depth;
	args.filter = c->filter;
	if (c->opts.shallow_since) {
		int64_t when;
		int tz;
		if (wg_date_parse(c->opts.shallow_since, &when, &tz))
			return wg_error_set(WG_EINVALID, "invalid --shallow-since date '%s'",
					    c->opts.shallow_since);
		snprintf(c->since, sizeof(c->since), "%lld", (long long)when);
		args.deepen_since = c->since;
	}
	args.deepen_not = c->opts.shallow_exclude;
	args.ndeepen_not = c->opts.nshallow_exclude;
	if ((err = wg_pack_receiver_request(&c->rcv, &c->base, c->repo, &c->d, &args, false,
					    clone_event, c)))
		return err;
	wg_link_check_release(&c->links);
	wg_link_check_init(&c->links, c->d.algo);
	c->rcv.links = &c->links;
	c->rcv.links_promisor = c->filter != NULL;
	return 0;
}

static int clone_next(struct wg_remote_op *op)
{
	struct clone *c = CL(op);
	int err;

	switch (c->state) {
	case CLONE_DISCOVERY:
		err = wg_discovery_next_request(&c->d, op);
		if (err != WG_ITEROVER)
			return err;
		/* git's remote-curl, before anything is written */
		if (c->d.dumb && (c->opts.depth || c->opts.shallow_since ||
				  c->opts.nshallow_exclude))
			return wg_error_set(WG_EUNSUPPORTED, "dumb http transport does not "
					    "support shallow capabilities");
		if ((err = choose_head(c)) || (err = choose_wants(c)) || (err = create_repo(c)))
			return err;
		if (!c->nwants) {
			c->empty = true;
			if ((err = complete(c)))
				return err;
			return WG_ITEROVER;
		}
		if (c->d.dumb) {
			/* A --filter is not applied (git's dumb clone too
			 * fetches everything, and writes the partial-clone
			 * config all the same). */
			if ((err = wg_dumb_fetch_new(&c->dumb, op, c->repo, c->d.url)))
				return err;
			for (size_t i = 0; i < c->nwants; i++)
				if ((err = wg_dumb_fetch_want(c->dumb, &c->wants[i])))
					return err;
			c->state = CLONE_DUMB;
			return clone_next(op);
		}
		c->state = CLONE_NEED_FETCH;
		/* fall through */
	case CLONE_NEED_FETCH:
		if ((err = fetch_request(c)))
			return err;
		c->state = CLONE_FETCHING;
		return 0;
	case CLONE_DUMB:
		err = wg_dumb_fetch_next_request(c->dumb);
		if (err != WG_ITEROVER)
			return err;
		if ((err = complete(c)))
			return err;
		return WG_ITEROVER;
	case CLONE_DONE:
		return WG_ITEROVER;
	default:
		return wg_error_set(WG_EINVALID, "clone: a response is still expected");
	}
}

static int clone_begin(struct wg_remote_op *op, int status, const char *type)
{
	struct clone *c = CL(op);

	if (c->state == CLONE_DISCOVERY)
		return wg_discovery_response_begin(&c->d, op, status, type);
	if (c->state == CLONE_DUMB)
		return wg_dumb_fetch_response_begin(c->dumb, status, type);
	return wg_remote_check_response(c->d.url, status, type,
					"application/x-git-upload-pack-result");
}

static int add_shallow(struct clone *c, const struct wg_oid *oid)
{
	const struct wg_limits *l = wg_remote_op_limits(&c->base, NULL);
	if (l->max_refs && c->nshallows >= l->max_refs)
		return wg_error_set(WG_ELIMIT, "the server sent more than %u shallow lines "
				    "(max_refs)", (unsigned)l->max_refs);
	if (c->nshallows == c->shallow_alloc) {
		size_t n = c->shallow_alloc ? 2 * c->shallow_alloc : 16;
		struct wg_oid *v = wg_realloc(c->shallows, n * sizeof(*v));
		if (!v)
			return nomem();
		c->shallows = v;
		c->shallow_alloc = n;
	}
	c->shallows[c->nshallows++] = *oid;
	return wg_link_check_shallow(&c->links, oid);
}

static int clone_feed(struct wg_remote_op *op, const void *data, size_t len)
{
	struct clone *c = CL(op);

	if (c->state == CLONE_DISCOVERY)
		return wg_discovery_feed(&c->d, data, len);
	if (c->state == CLONE_DUMB)
		return wg_dumb_fetch_feed(c->dumb, data, len);
	return wg_pack_receiver_feed(&c->rcv, data, len);
}

static int clone_end(struct wg_remote_op *op)
{
	struct clone *c = CL(op);
	unsigned char pack_hash[WG_MAX_RAWSZ];
	bool got_pack;
	int err;

	if (c->state == CLONE_DISCOVERY)
		return wg_discovery_response_end(&c->d);
	if (c->state == CLONE_DUMB)
		return wg_dumb_fetch_response_end(c->dumb);
	if ((err = wg_pack_receiver_finish(&c->rcv, &got_pack, pack_hash)))
		return err;
	if (!got_pack)
		return wg_error_set(WG_ECORRUPT, "the server sent no pack");
	/* A partial clone's pack comes from the promisor remote: git (and we)
	 * may fetch what it lacks from there. */
	if (c->filter && (err = wg_pack_receiver_mark_promisor(&c->rcv, pack_hash)))
		return err;
	return complete(c);
}

static void clone_free(struct wg_remote_op *op)
{
	struct clone *c = CL(op);

	bool unpublished = c->repo && wg_repo_unpublished(c->repo);

	wg_pack_receiver_release(&c->rcv);
	wg_dumb_fetch_free(c->dumb);
	wg_link_check_release(&c->links);
	wg_repo_free(c->repo);  /* removes an unpublished clone's staging */
	if ((c->created && c->state != CLONE_DONE) || (unpublished && c->existed)) {
		/* as git: a directory we made goes, one that was there (empty)
		 * is left empty */
		wg_fs_remove_tree(c->path);
		if (c->existed)
			wg_fs_mkdir_p(c->path);
	}
	wg_discovery_release(&c->d);
	for (size_t i = 0; i < c->nprefixes; i++)
		wg_free(c->prefixes[i]);
	wg_free(c->url);
	wg_free(c->path);
	wg_free(c->branch);
	wg_free(c->filter);
	wg_free(c->ref_format);
	wg_free(c->revision);
	for (size_t i = 0; c->config && i < c->opts.nconfig; i++)
		wg_free(c->config[i]);
	wg_free(c->config);
	wg_free(c->head_branch);
	wg_free(c->wants);
	wg_free(c->shallows);
	wg_free(c);
}

static const struct wg_remote_op_vtable clone_vtable = {
	clone_next, clone_begin, clone_feed, clone_end, clone_free,
};

/* The ls-refs ref-prefix values, as git's clone makes them
 * (builtin/clone.c): its fetch refspec's (refs/heads/, or refs/ for a
 * mirror), refs/tags/, -b's name every way git's rules spell it, and
 * HEAD unless -b names the one branch wanted. A v0 server sends all refs
 * whatever is asked. */
static int clone_prefixes(struct clone *c)
{
	struct wg_buf p = WG_BUF_INIT;
	const char *fixed[] = { c->opts.mirror ? "refs/" : "refs/heads/", "refs/tags/" };

	for (size_t i = 0; i < 2; i++)
		if (!(c->prefixes[c->nprefixes++] = wg_strdup(fixed[i])))
			return nomem();
	for (size_t i = 0; c->branch && i < WG_REF_DWIM_RULES; i++) {
		wg_buf_reset(&p);
		if (wg_buf_printf(&p, wg_ref_dwim_rules[i], c->branch) ||
		    !(c->prefixes[c->nprefixes++] = wg_strdup(wg_buf_cstr(&p)))) {
			wg_buf_release(&p);
			return nomem();
		}
	}
	wg_buf_release(&p);
	if (!(c->branch && c->opts.single_branch) &&
	    !(c->prefixes[c->nprefixes++] = wg_strdup("HEAD")))
		return nomem();
	c->d.prefixes = (const char *const *)c->prefixes;
	c->d.nprefixes = c->nprefixes;
	return 0;
}

int wg_clone_new(struct wg_remote_op **out, const char *url, const char *path,
		 const struct wg_clone_options *opts)
{
	static const struct wg_clone_options defaults = WG_CLONE_OPTIONS_INIT;
	struct clone *c;
	int err;

	if (!opts)
		opts = &defaults;
	if (wg_fs_exists(path) && !wg_fs_dir_is_empty(path))
		return wg_error_set(WG_EEXISTS, "destination path '%s' already exists and is "
				    "not an empty directory.", path);
	if (!(c = wg_calloc(1, sizeof(*c))))
		return nomem();
	c->base.vt = &clone_vtable;
	c->opts = *opts;
	c->base.progress = opts->progress;
	c->base.progress_payload = opts->progress_payload;
	c->base.quiet = opts->quiet;
	/* config and reflogs get the URL without credentials */
	if (!(c->url = wg_url_redact_dup(url)) || !(c->path = wg_strdup(path)) ||
	    (opts->branch && !(c->branch = wg_strdup(opts->branch))) ||
	    (opts->filter && !(c->filter = wg_strdup(opts->filter))) ||
	    (opts->ref_format && !(c->ref_format = wg_strdup(opts->ref_format))) ||
	    (opts->revision && !(c->revision = wg_strdup(opts->revision)))) {
		clone_free(&c->base);
		return nomem();
	}
	if (opts->nconfig) {
		if (!(c->config = wg_calloc(opts->nconfig, sizeof(*c->config)))) {
			c->opts.nconfig = 0;
			clone_free(&c->base);
			return nomem();
		}
		for (size_t i = 0; i < opts->nconfig; i++)
			if (!(c->config[i] = wg_strdup(opts->config[i]))) {
				clone_free(&c->base);
				return nomem();
			}
	}
	c->opts.config = NULL;
	c->opts.branch = c->branch;
	c->opts.filter = c->filter;
	c->opts.ref_format = c->ref_format;
	c->opts.revision = c->revision;
	if (c->revision && (c->branch || c->opts.mirror)) {
		err = wg_error_set(WG_EINVALID, "options '--revision' and '%s' cannot be "
				   "used together", c->branch ? "--branch" : "--mirror");
		clone_free(&c->base);
		return err;
	}
	if ((err = wg_discovery_init(&c->d, url, NULL)) ||
	    (err = wg_remote_op_set_credentials(&c->base, url)) || (err = clone_prefixes(c))) {
		clone_free(&c->base);
		return err;
	}
	c->d.allow_dumb = true;
	/* the one commit wanted is known: no ref listing (v2) */
	c->d.caps_only = c->revision != NULL;
	c->base.discovery = &c->d;
	*out = &c->base;
	return 0;
}

int wg_clone_protocol(struct wg_remote_op *op)
{
	return CL(op)->d.version;
}

bool wg_clone_was_empty(struct wg_remote_op *op)
{
	return CL(op)->empty;
}

struct wg_repo *wg_clone_repo(struct wg_remote_op *op)
{
	return CL(op)->repo;
}

bool wg_clone_worktree_staged(struct wg_remote_op *op)
{
	struct clone *c = CL(op);
	return c->repo && wg_repo_unpublished(c->repo) && !c->opts.bare && !c->opts.mirror;
}

int wg_clone_publish(struct wg_remote_op *op)
{
	struct clone *c = CL(op);
	int err;
	if (c->state != CLONE_DONE)
		return wg_error_set(WG_EINVALID, "the clone has not completed");
	if (!c->repo || !wg_repo_unpublished(c->repo))
		return 0;
	err = wg_repo_publish(&c->repo);
	c->rcv.repo = c->repo;
	return err;
}
