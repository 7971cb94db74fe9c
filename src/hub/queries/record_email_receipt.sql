-- An email receipt: the delivery whose provider message id is $1 moves its
-- provider_status to $2 ('delivered', 'bounced', 'complained') when that
-- is later in the order delivered < bounced < complained than what it has
-- (a repeat or an older receipt changes nothing), updated_at $3. Returns
-- the delivery's user, its notification's type and category, the user's
-- email and whether it changed; no row when no email delivery has that id.
WITH target AS (
  SELECT d.id, d.user_id, d.notification_id
  FROM chopar.deliveries d
  WHERE d.channel = 'email' AND d.provider_message_id = $1
  ORDER BY d.id DESC
  LIMIT 1
), changed AS (
  UPDATE chopar.deliveries d
  SET provider_status = $2, updated_at = $3::timestamptz
  FROM target t
  WHERE d.id = t.id
    AND CASE d.provider_status WHEN 'delivered' THEN 1 WHEN 'bounced' THEN 2
                               WHEN 'complained' THEN 3 ELSE 0 END
        < CASE $2::text WHEN 'delivered' THEN 1 WHEN 'bounced' THEN 2 WHEN 'complained' THEN 3 END
  RETURNING d.id
)
SELECT t.id, t.user_id, n.type, n.category, u.email,
       EXISTS (SELECT 1 FROM changed) AS changed
FROM target t
JOIN chopar.notifications n ON n.id = t.notification_id
JOIN chopar.users u ON u.id = t.user_id
