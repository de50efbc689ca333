import { render } from 'preact';
import { App } from './App.tsx';
import { nederlandseValidatie } from './validatie.ts';
import './stijl.css';

nederlandseValidatie(document);
render(<App />, document.getElementById('app')!);
