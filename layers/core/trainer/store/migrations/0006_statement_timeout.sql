-- Every statement of the application's role ends within 5 s (a request is answered 503 while API
-- Gateway still waits, instead of holding a connection on a stuck query). Set on the role, so it holds
-- through PgBouncer and RDS Proxy, which do not pass session options. The migration runner lifts it
-- for its own session.
DO $$
BEGIN
  EXECUTE format('ALTER ROLE %I SET statement_timeout = %L', current_user, '5s');
END
$$;
