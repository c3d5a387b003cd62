import type { FunctionComponent } from "preact";
import { useEffect, useState } from "preact/hooks";
import { NotFound, Layout, Loading } from "./components.tsx";
import { Dashboard } from "./pages/Dashboard.tsx";
import { EntityList, EntityPage } from "./pages/Entity.tsx";
import { EventPage } from "./pages/Event.tsx";
import { ProviderPage } from "./pages/Provider.tsx";
import { TxPage } from "./pages/Tx.tsx";
import { useLocation } from "../shared/router.tsx";
import { matchRoute } from "./routes.ts";

// The owner console (/wallet, /webhooks) is a separate chunk, loaded when one of its pages opens: the public pages
// do not download or parse it (a quarter of the app's code).
const loadWallet = () => import("../console/WalletPage.tsx");
const loadWebhooks = () => import("../console/WebhooksPage.tsx");

/** A component from a lazily loaded module (a loading line until it has arrived). */
function Lazy<P extends object>({ load, props }: { load: () => Promise<FunctionComponent<P>>; props: P }) {
  const [C, setC] = useState<{ c: FunctionComponent<P> } | null>(null);
  useEffect(() => {
    let live = true;
    void load().then((c) => live && setC({ c }));
    return () => void (live = false);
  }, [load]);
  return C ? <C.c {...props} /> : <Loading what="the page" />;
}
const walletPage = () => loadWallet().then((m) => m.WalletPage);
const walletSessionPage = () => loadWallet().then((m) => m.WalletSessionPage);
const webhooksPage = () => loadWebhooks().then((m) => m.WebhooksPage);
const webhookPage = () => loadWebhooks().then((m) => m.WebhookPage);

/** Which page a URL shows (routes.ts names them; add a case here when you add a route). */
export function App() {
  const url = useLocation();
  const route = matchRoute(url.pathname);
  let page;
  switch (route?.name) {
    case "dashboard":
      page = <Dashboard />;
      break;
    case "services":
      page = <EntityList key="services" kind="service" url={url} />;
      break;
    case "agents":
      page = <EntityList key="agents" kind="agent" url={url} />;
      break;
    case "service":
      page = <EntityPage key={`s:${route.param}`} kind="service" id={route.param!} />;
      break;
    case "agent":
      page = <EntityPage key={`a:${route.param}`} kind="agent" id={route.param!} />;
      break;
    case "event":
      page = <EventPage key={`e:${route.param}`} id={route.param!} />;
      break;
    case "tx":
      page = <TxPage key={`t:${route.param}`} hash={route.param!} />;
      break;
    case "provider":
      page = <ProviderPage key={`p:${route.param}`} providerKey={route.param!} />;
      break;
    case "wallet":
      page = <Lazy key="wallet" load={walletPage} props={{}} />;
      break;
    case "wallet-session":
      page = <Lazy key={`w:${route.param}`} load={walletSessionPage} props={{ id: route.param! }} />;
      break;
    case "webhooks":
      page = <Lazy key="webhooks" load={webhooksPage} props={{}} />;
      break;
    case "webhook":
      page = <Lazy key={`h:${route.param}`} load={webhookPage} props={{ id: route.param! }} />;
      break;
    default:
      page = <NotFound />;
  }
  return <Layout>{page}</Layout>;
}
