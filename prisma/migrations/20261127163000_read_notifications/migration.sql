-- The API's reads from memory (decision 0041): every change to a row the API keeps in memory sends
-- NOTIFY slipway_reads '<kind>:<key>' on commit, whoever wrote it. TG_ARGV: the tag's kind and the column of its key.
CREATE FUNCTION slipway_reads_notify() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  before_key text;
  after_key text;
BEGIN
  IF TG_OP <> 'INSERT' THEN before_key := to_jsonb(OLD) ->> TG_ARGV[1]; END IF;
  IF TG_OP <> 'DELETE' THEN after_key := to_jsonb(NEW) ->> TG_ARGV[1]; END IF;
  IF before_key IS NOT NULL THEN PERFORM pg_notify('slipway_reads', TG_ARGV[0] || ':' || before_key); END IF;
  IF after_key IS NOT NULL AND after_key IS DISTINCT FROM before_key THEN
    PERFORM pg_notify('slipway_reads', TG_ARGV[0] || ':' || after_key);
  END IF;
  RETURN NULL;
END $$;

-- Credentials: a new session or token cannot have been read before, so only changes and removals count.
CREATE TRIGGER sessions_reads AFTER UPDATE OR DELETE ON sessions FOR EACH ROW EXECUTE FUNCTION slipway_reads_notify('session', 'id');
CREATE TRIGGER api_tokens_reads AFTER UPDATE OR DELETE ON api_tokens FOR EACH ROW EXECUTE FUNCTION slipway_reads_notify('token', 'id');
CREATE TRIGGER users_reads AFTER UPDATE OR DELETE ON users FOR EACH ROW EXECUTE FUNCTION slipway_reads_notify('user', 'id');
-- A workspace, who belongs to it, its apps and their deployments.
CREATE TRIGGER workspaces_reads AFTER INSERT OR UPDATE OR DELETE ON workspaces FOR EACH ROW EXECUTE FUNCTION slipway_reads_notify('ws', 'id');
CREATE TRIGGER memberships_reads AFTER INSERT OR UPDATE OR DELETE ON memberships FOR EACH ROW EXECUTE FUNCTION slipway_reads_notify('ws', 'workspace_id');
CREATE TRIGGER apps_reads AFTER INSERT OR UPDATE OR DELETE ON apps FOR EACH ROW EXECUTE FUNCTION slipway_reads_notify('ws', 'workspace_id');
CREATE TRIGGER deployments_reads AFTER INSERT OR UPDATE OR DELETE ON deployments FOR EACH ROW EXECUTE FUNCTION slipway_reads_notify('ws', 'workspace_id');
-- A server's health checks write its row every few seconds; only whether it answers is read along with a workspace.
CREATE TRIGGER nodes_reads AFTER UPDATE ON nodes FOR EACH ROW
  WHEN (OLD.unreachable_since IS DISTINCT FROM NEW.unreachable_since) EXECUTE FUNCTION slipway_reads_notify('node', 'id');
CREATE TRIGGER nodes_reads_removed AFTER DELETE ON nodes FOR EACH ROW EXECUTE FUNCTION slipway_reads_notify('node', 'id');
