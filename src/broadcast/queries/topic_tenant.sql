-- The tenant of topic $1 (NULL: none); no row when there is no such topic.
SELECT tenant FROM chopar.topics WHERE key = $1
