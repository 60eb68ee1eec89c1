-- One plan being built per user (concurrent or repeated POST /plans no longer build two plans side by
-- side, whose activations then collide on training_plans_one_active_uq). Extra pending plans left by
-- that bug are failed first, the newest kept.
UPDATE training_plans SET status = 'failed', error = 'Replaced by a newer plan request.', updated_at = now()
WHERE status = 'pending'
  AND id NOT IN (
    SELECT DISTINCT ON (user_id) id FROM training_plans WHERE status = 'pending'
    ORDER BY user_id, created_at DESC, id
  );

CREATE UNIQUE INDEX training_plans_one_pending_uq ON training_plans (user_id) WHERE status = 'pending';
