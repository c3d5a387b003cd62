import { NotFound, Layout } from "./components.tsx";
import { Dashboard } from "./pages/Dashboard.tsx";
import { EntityList, EntityPage } from "./pages/Entity.tsx";
import { EventPage } from "./pages/Event.tsx";
import { ProviderPage } from "./pages/Provider.tsx";
import { TxPage } from "./pages/Tx.tsx";
import { useLocation } from "./router.tsx";
import { matchRoute } from "./routes.ts";
import { WalletPage, WalletSessionPage } from "../console/WalletPage.tsx";
import { WebhookPage, WebhooksPage } from "../console/WebhooksPage.tsx";

/** Which page a URL shows (routes.ts names them; add a case here when you add a route). */
export function App() {
  const url = useLocation();
  const route = matchRoute(url.pathname);
  let page;
  switch (route?.name) {
    case "dashboard": page = <Dashboard />; break;
    case "services": page = <EntityList key="services" kind="service" url={url} />; break;
    case "agents": page = <EntityList key="agents" kind="agent" url={url} />; break;
    case "service": page = <EntityPage key={`s:${route.param}`} kind="service" id={route.param!} />; break;
    case "agent": page = <EntityPage key={`a:${route.param}`} kind="agent" id={route.param!} />; break;
    case "event": page = <EventPage key={`e:${route.param}`} id={route.param!} />; break;
    case "tx": page = <TxPage key={`t:${route.param}`} hash={route.param!} />; break;
    case "provider": page = <ProviderPage key={`p:${route.param}`} providerKey={route.param!} />; break;
    case "wallet": page = <WalletPage />; break;
    case "wallet-session": page = <WalletSessionPage key={`w:${route.param}`} id={route.param!} />; break;
    case "webhooks": page = <WebhooksPage />; break;
    case "webhook": page = <WebhookPage key={`h:${route.param}`} id={route.param!} />; break;
    default: page = <NotFound />;
  }
  return <Layout>{page}</Layout>;
}
