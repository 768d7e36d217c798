/* Intrusive doubly linked lists (circular, with a head node). */
#ifndef BAREMON_LIST_H
#define BAREMON_LIST_H

#include <stdbool.h>
#include <stddef.h>

struct list {
	struct list *next, *prev;
};

#define LIST_INIT(name) { &(name), &(name) }
#define container_of(p, type, member) \
	((type *)((char *)(p) - offsetof(type, member)))
#define list_entry(p, type, member) container_of(p, type, member)
#define list_for_each(pos, head) \
	for (struct list *pos = (head)->next; pos != (head); pos = pos->next)
/* Safe against removal of pos inside the loop. */
#define list_for_each_safe(pos, head)                                   \
	for (struct list *pos = (head)->next, *pos##_next = pos->next;   \
	     pos != (head); pos = pos##_next, pos##_next = pos->next)

static inline void list_init(struct list *l) { l->next = l->prev = l; }
static inline bool list_empty(const struct list *l) { return l->next == l; }

static inline void list_insert_between(struct list *n, struct list *prev,
				       struct list *next)
{
	n->prev = prev;
	n->next = next;
	prev->next = n;
	next->prev = n;
}

static inline void list_add_tail(struct list *n, struct list *head)
{
	list_insert_between(n, head->prev, head);
}

static inline void list_add_head(struct list *n, struct list *head)
{
	list_insert_between(n, head, head->next);
}

static inline void list_remove(struct list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = n->prev = n;
}

#endif
