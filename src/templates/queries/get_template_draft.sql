-- GET …/draft, and preview's draft: the draft of $1 kind, $2 key, $3 tenant.
SELECT document::text AS document, created_at::text AS created_at,
       updated_at::text AS updated_at, updated_by
FROM chopar.template_drafts
WHERE kind = $1::text AND key = $2::text AND coalesce(tenant, '') = coalesce($3::text, '')
